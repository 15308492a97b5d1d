// The Worker's vars and secrets; every one is optional and validated at start by src/config.ts and
// src/store/config.ts. The TASK_LIST and TASK_DB bindings are declared beside their stores, in
// src/store/durable-object.ts and src/store/postgres-worker.ts, which only the Worker's type check reads.
declare namespace Cloudflare {
  interface Env {
    readonly BASE_PATH?: string;
    readonly MAX_BODY_BYTES?: string;
    readonly MAX_TASKS?: string;
    readonly MAX_LIST_BYTES?: string;
    readonly CORS_ORIGINS?: string;
    readonly LOG_LEVEL?: string;
    readonly TASK_STORE?: string;
    readonly DATABASE_SCHEMA?: string;
    /** Secrets: `wrangler secret put READ_TOKENS`, or `.dev.vars` locally. */
    readonly READ_TOKENS?: string;
    readonly WRITE_TOKENS?: string;
  }
}
