import { Hono } from "hono";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import type { AppConfig } from "./config.ts";
import { toNewTask } from "./new-task.ts";
import { parseJson, readBody, requireJsonContentType } from "./request-body.ts";
import { type TaskStore, taskJson } from "./store/store.ts";

/** The two paths that serve the same list. */
export const TASK_PATHS = ["/tasks", "/index.php"];

/** What the app is built from: where the list lives and the validated configuration. */
export interface AppOptions {
  readonly store: TaskStore;
  readonly config: AppConfig;
}

/** Builds the task list app. It uses only Web-standard APIs, so every runtime serves it as it is. */
export function createApp({ store, config }: AppOptions): Hono {
  const app = new Hono().basePath(config.basePath);

  app.use(async (c, next) => {
    await next();
    c.res.headers.set("X-Content-Type-Options", "nosniff");
  });
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) => new Response(null, { status: 405, headers: { Allow: methods.join(", ") } }),
    }),
  );
  if (config.corsOrigins !== undefined) {
    const origins = config.corsOrigins;
    const withCors = cors({
      origin: origins === "*" ? "*" : [...origins],
      allowMethods: ["GET", "HEAD", "POST"],
      exposeHeaders: ["ETag"],
      maxAge: 86_400,
    });
    for (const path of TASK_PATHS) app.use(path, withCors);
  }

  app.on("GET", TASK_PATHS, async (c) => {
    const { version, body } = await store.read(parseIfNoneMatch(c.req.header("If-None-Match")));
    const headers = { ETag: `"${version}"`, "Cache-Control": "no-cache" };
    if (body === undefined) return c.body(null, 304, headers);
    return c.body(body as Uint8Array<ArrayBuffer>, 200, {
      ...headers,
      "Content-Type": "application/json",
      "Content-Length": String(body.byteLength),
    });
  });

  app.on("POST", TASK_PATHS, async (c) => {
    const body = await readBody(c.req.raw, config.maxBodyBytes);
    requireJsonContentType(c.req.header("Content-Type"));
    const task = await store.append(toNewTask(parseJson(body)), config.maxTasks);
    if (task === undefined) {
      throw new HTTPException(507, { message: `Task list is full: it holds the maximum of ${config.maxTasks} tasks` });
    }
    return c.body(taskJson(task), 200, { "Content-Type": "application/json" });
  });

  app.notFound((c) => c.json({ message: "Not found" }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException && error.status !== 500) {
      return c.json({ message: error.message }, error.status);
    }
    console.error(
      JSON.stringify({
        level: "error",
        message: "Unhandled error",
        method: c.req.method,
        path: c.req.path,
        error: describe(error),
      }),
    );
    return c.json({ message: "Internal server error" }, 500);
  });

  return app;
}

/** The entity tags of an `If-None-Match` header, without quotes or weak markers; `*` stays `*`. */
function parseIfNoneMatch(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header.split(",").map((tag) =>
    tag
      .trim()
      .replace(/^W\//, "")
      .replace(/^"(.*)"$/, "$1"),
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ""}` : String(error);
}
