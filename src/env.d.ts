// The Worker's bindings, vars and secrets, and the one Node module it loads; only the Worker's type check reads it.
// Every var is optional and validated at start (src/config.ts, src/store/kinds.ts).
declare namespace Cloudflare {
  interface Env {
    /** Each list's Durable Object, named by the list's name; bound in the `durable` environment of wrangler.toml only. */
    readonly TASK_LIST?: DurableObjectNamespace<
      import("./runtimes/durable-objects/task-list-object.ts").TaskListObject
    >;
    /** The directory of lists' Durable Object; bound in the `durable` environment of wrangler.toml only. */
    readonly TASK_LISTS?: DurableObjectNamespace<
      import("./runtimes/durable-objects/list-directory-object.ts").ListDirectoryObject
    >;
    /** The list's database through Hyperdrive; bound in the `postgres` environment of wrangler.toml only. */
    readonly TASK_DB?: Hyperdrive;
    readonly BASE_PATH?: string;
    readonly MAX_BODY_BYTES?: string;
    readonly MAX_TASKS?: string;
    readonly MAX_LIST_BYTES?: string;
    readonly CORS_ORIGINS?: string;
    readonly MAX_SUBSCRIBERS?: string;
    readonly MAX_IDEMPOTENCY_KEYS?: string;
    readonly MAX_LISTS?: string;
    readonly LOG_LEVEL?: string;
    readonly TASK_STORE?: string;
    readonly DATABASE_SCHEMA?: string;
    /** Secrets: `wrangler secret put READ_TOKENS`, or `.dev.vars` locally. */
    readonly READ_TOKENS?: string;
    readonly WRITE_TOKENS?: string;
  }
}

/** workerd's AsyncLocalStorage, which the nodejs_als flag of wrangler.toml brings: the part the entry uses. */
declare module "node:async_hooks" {
  class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
