// What a route is: its paths, and for each method it serves the handler and the OpenAPI operation
// together. The app mounts the table, and the document, every 405 and every Allow come from it.
import type { MiddlewareHandler } from "hono";
import type { UpgradeWebSocket } from "hono/ws";
import type { AppConfig } from "../config.ts";
import type { TaskLists } from "../engine/task-store.ts";
import type { Sha256 } from "../http/idempotency.ts";
import type { AppEnv, AppHandler } from "../http/request-context.ts";
import type { LogSink } from "../http/request-log.ts";
import type { DocumentedRoute, Endpoint } from "../pages/openapi.ts";

/** One method of a route: who may call it, how the document describes it, and what handles it. */
export interface HandledEndpoint extends Endpoint {
  readonly handler: AppHandler;
  /** What answers before the token check, when it answers: a browser sent to a list's page. */
  readonly beforeAccess?: MiddlewareHandler<AppEnv>;
}

/** Who may call a method that reads a list: a read token, or a key of the list that reads. */
export const READ_ACCESS = { access: "read", listKey: "read" } as const satisfies Partial<Endpoint>;
/** Who may call a method that writes a list's tasks: a write token, or a key of the list that writes. */
export const WRITE_ACCESS = { access: "write", listKey: "write" } as const satisfies Partial<Endpoint>;
/** Who may call a method that changes a list itself or its keys: a write token, or a key that manages the list. */
export const MANAGE_ACCESS = { access: "write", listKey: "manage" } as const satisfies Partial<Endpoint>;

/** One row of the route table. */
export type Route = DocumentedRoute<HandledEndpoint>;

/** What routes are built from: the app's options, as {@link createApp} was given them. */
export interface RouteContext {
  readonly lists: TaskLists;
  readonly config: AppConfig;
  readonly logSink: LogSink;
  readonly sha256?: Sha256 | undefined;
  readonly upgradeWebSocket?: UpgradeWebSocket | undefined;
  readonly openSocket?:
    | ((request: Request, cursor: number, list: string, keyHash?: string) => Response | Promise<Response>)
    | undefined;
  readonly closing?: AbortSignal | undefined;
}
