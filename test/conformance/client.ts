import { check, checkEqual, checkTask, clip, clipJson, fail, type Task } from "../support/check.ts";
import { bearerSocket } from "../support/subscriber-readers.ts";

/** Sends one request and answers it: `fetch`, `app.request`, or a Worker's `fetch`. */
export type FetchFunction = (request: Request) => Promise<Response>;

/** The deployment under test. */
export interface ConformanceTarget {
  /** Where the service is reached, its base path included, such as https://tasks.example.com/api. */
  readonly baseUrl: string;
  readonly fetch: FetchFunction;
}

/** What is known of the target's configuration; everything left out is taken as the contract's default. */
export interface ConformanceOptions {
  /** The base path that ends `baseUrl` (BASE_PATH), such as "/api"; default none. */
  readonly basePath?: string;
  /** MAX_BODY_BYTES; default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** MAX_TASKS, when the target was started with a limit small enough to fill; enables the 507 cases. */
  readonly maxTasks?: number;
  /** MAX_LIST_BYTES, when the suite may fill the list to it with large titles; enables the byte-limit cases. */
  readonly maxListBytes?: number;
  /**
   * A token from READ_TOKENS and one from WRITE_TOKENS, when the target has both set: requests
   * carry the write token unless a case says otherwise, and the access cases run.
   */
  readonly tokens?: { readonly read: string; readonly write: string };
  /** CORS_ORIGINS as configured ("*" or origins); leave out when CORS is off. */
  readonly corsOrigins?: "*" | readonly string[];
  /** The target has served no POST yet, so it must hold exactly the two initial tasks. */
  readonly fresh?: boolean;
  /** The target takes WebSocket upgrades on /tasks/events (a real server), so the socket cases run. */
  readonly sockets?: boolean;
  /** MAX_IDEMPOTENCY_KEYS, when it is small enough for the suite to pass. */
  readonly maxIdempotencyKeys?: number;
  /** A second token of WRITE_TOKENS, to show that each token has keys of its own. */
  readonly otherWriteToken?: string;
  /** MAX_SUBSCRIBERS, when it is small enough for the suite to reach. */
  readonly maxSubscribers?: number;
  /**
   * The target is a Worker: workerd drops a request header sent with an empty value (If-Match and
   * Content-Type among them) before the service sees it, so the cases that send one are skipped.
   */
  readonly worker?: boolean;
  /** The suite itself runs inside workerd, whose fetch warns of any header byte past 0x7F. */
  readonly inWorkerd?: boolean;
  /**
   * The path of a named list under the base path, such as `/lists/groceries`: the list's paths
   * (`/tasks`, `/tasks/{id}`, `/tasks/events`) are sent under it, and `/index.php`, which serves the
   * default list only, becomes its `/tasks`. Default: the default list at the top level.
   */
  readonly listPath?: string;
  /**
   * The target is an app built over one store (`createApp({ store })`): it serves the default list
   * alone and answers 501 to a list's creation, so the cases of a deleted list are skipped.
   */
  readonly oneList?: boolean;
}

/** A body to send: text or bytes as they are, or bytes streamed in chunks without a Content-Length. */
export type RequestBody = string | Uint8Array | { readonly streamed: Uint8Array };

/** One request, with a path relative to the base URL. */
export interface RequestSpec {
  readonly method: string;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: RequestBody;
  /** Resolve `path` against the origin instead of the base URL, to reach paths outside the base path. */
  readonly outsideBasePath?: boolean;
  /** Send no Authorization header even when the suite has tokens; a case's own Authorization header is always sent as it is. */
  readonly anonymous?: boolean;
}

/** A response read in full. */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Uint8Array;
  readonly text: string;
}

/** The list as one GET saw it. */
export interface ListSnapshot {
  readonly tasks: readonly Task[];
  readonly text: string;
  /** Bytes of the body: the list's JSON as the service counts it. */
  readonly byteLength: number;
  readonly etag: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const STREAM_CHUNK_BYTES = 16 * 1024;

/** Talks to one target: sends requests and reads the list. */
export interface Client {
  readonly options: ConformanceOptions;
  send(request: RequestSpec): Promise<Reply>;
  /** Sends a request and hands back the response with its body unread, for a stream that goes on. */
  open(request: RequestSpec): Promise<Response>;
  /** Opens a WebSocket to `path` (with its query) under the base URL, with `token` or else the suite's read token. */
  socket(path: string, token?: string): WebSocket;
  /** Reads the list with GET /tasks and checks that it is a list of tasks. */
  readList(): Promise<ListSnapshot>;
  /** Creates a task and checks that the response is 200; returns the created task. */
  create(task: { title: string; completed: boolean }): Promise<Task>;
}

/** Builds a client for `target`. */
export function createClient(target: ConformanceTarget, options: ConformanceOptions): Client {
  const base = target.baseUrl.replace(/\/+$/, "");
  const basePath = options.basePath ?? "";
  if (basePath !== "" && !base.endsWith(basePath)) {
    throw new Error(`The base URL ${base} must end with the base path ${basePath}`);
  }
  const origin = base.slice(0, base.length - basePath.length);

  const open = (spec: RequestSpec): Promise<Response> => {
    const url = `${spec.outsideBasePath === true ? origin : base}${inList(options, spec.path)}`;
    const token = spec.anonymous === true ? undefined : options.tokens?.write;
    return target.fetch(new Request(url, requestInit(spec, token)));
  };

  const socket = (path: string, given?: string): WebSocket => {
    const url = `${base.replace(/^http/, "ws")}${inList(options, path)}`;
    return bearerSocket(url, given ?? options.tokens?.read);
  };

  const send = async (spec: RequestSpec): Promise<Reply> => {
    const response = await open(spec);
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, headers: response.headers, bytes, text: decoder.decode(bytes) };
  };

  // The last list read and its tasks: a case that reads an unchanged list again (a full one is
  // 16 MiB) gets the tasks already parsed and checked.
  let lastList: { readonly text: string; readonly tasks: readonly Task[] } | undefined;
  const tasksOf = (reply: Reply): readonly Task[] => {
    if (lastList?.text === reply.text) return lastList.tasks;
    const tasks = parseJson(reply, "GET /tasks");
    check(Array.isArray(tasks), () => `GET /tasks must answer a JSON array, got ${clip(reply.text)}`);
    tasks.forEach((task, index) => {
      checkTask(task, `task at index ${index}`);
    });
    lastList = { text: reply.text, tasks: Object.freeze(tasks as Task[]) };
    return lastList.tasks;
  };

  const readList = async (): Promise<ListSnapshot> => {
    const reply = await send({ method: "GET", path: "/tasks" });
    checkEqual(reply.status, 200, "status of GET /tasks");
    const tasks = tasksOf(reply);
    return {
      tasks,
      text: reply.text,
      byteLength: reply.bytes.byteLength,
      etag: reply.headers.get("etag"),
    };
  };

  const create = async (task: { title: string; completed: boolean }): Promise<Task> => {
    const reply = await send(jsonPost("/tasks", task));
    checkEqual(
      reply.status,
      200,
      () => `status of POST /tasks ${clip(JSON.stringify(task))} (body ${clip(reply.text)})`,
    );
    const created = parseJson(reply, "POST /tasks");
    checkTask(created, "created task");
    return created;
  };

  return { options, send, open, socket, readList, create };
}

/** Where a path under the base path is sent: a list's paths under `listPath` when the options name a named list. */
export function inList(options: ConformanceOptions, path: string): string {
  if (options.listPath === undefined) return path;
  return path.replace(/^\/index\.php(?=$|\?)/, "/tasks").replace(/^\/tasks(?=$|[/?])/, `${options.listPath}/tasks`);
}

/** A POST of `value` as JSON with `Content-Type: application/json`. */
export function jsonPost(path: string, value: unknown): RequestSpec {
  return {
    method: "POST",
    path,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(value),
  };
}

/** Parses a reply's body as JSON, failing the check with the body when it is not JSON. */
export function parseJson(reply: Reply, what: string): unknown {
  try {
    return JSON.parse(reply.text);
  } catch {
    return fail(`${what} must answer JSON, got ${clipJson(reply.text)}`);
  }
}

function requestInit(spec: RequestSpec, token: string | undefined): RequestInit {
  const headers = new Headers(spec.headers);
  if (token !== undefined && !headers.has("authorization")) headers.set("Authorization", `Bearer ${token}`);
  // `duplex` is required by fetch for streamed bodies and is missing from some RequestInit typings.
  const init: RequestInit & { duplex?: "half" } = { method: spec.method, headers };
  const body = spec.body;
  if (body === undefined) return init;
  if (typeof body === "string") {
    // Sent as bytes so that fetch adds no Content-Type of its own: only the case's headers count.
    init.body = encoder.encode(body);
  } else if (body instanceof Uint8Array) {
    init.body = body;
  } else {
    init.body = streamOf(body.streamed);
    init.duplex = "half";
  }
  return init;
}

/** A stream of `bytes` in small chunks; fetch sends it chunked, with no Content-Length. */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(offset, offset + STREAM_CHUNK_BYTES));
      offset += STREAM_CHUNK_BYTES;
    },
  });
}
