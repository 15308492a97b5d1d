// The contract's access rules for tokens and list keys as small tables, and every route and method a
// probe may call on a list, with what a request the rules let in gets: the list-key probes' oracle.

/** What a deployment token or a list key may do. */
export type Access = "read" | "write";
/** What a route asks of a list key of its own list: reading, writing its tasks, or managing the list. */
export type KeyNeed = "read" | "write" | "manage";
/** What the rules answer a credential on a route. */
export type Verdict = "allowed" | "no token" | "unknown" | "forbidden";

/**
 * A credential as the rules see it. A revoked or expired key, a deleted list's key and junk are all
 * `unknown`: the contract answers them exactly as a token the service never gave.
 */
export type Holder =
  | { readonly kind: "none" }
  | { readonly kind: "unknown" }
  | { readonly kind: "token"; readonly access: Access }
  | { readonly kind: "key"; readonly access: Access; readonly list: string };

/** What a route needs: nothing (documents, and a 405, which names only the path's methods), or access. */
export type Guard = "open" | { readonly access: Access; readonly key?: KeyNeed };

/** Deployment tokens, by what the route needs (rows) and the token's access (columns): a writer may read. */
const TOKEN_RULES: Record<Access, Record<Access, Verdict>> = {
  read: { read: "allowed", write: "allowed" },
  write: { read: "forbidden", write: "allowed" },
};

/** A live list key on its own list, by what the route asks of a key (rows) and the key's access (columns). */
const KEY_RULES: Record<KeyNeed, Record<Access, Verdict>> = {
  read: { read: "allowed", write: "allowed" },
  write: { read: "forbidden", write: "allowed" },
  manage: { read: "forbidden", write: "forbidden" },
};

/**
 * The contract's answer to `holder` on a route guarded by `guard`, of the list named `list`. A key
 * anywhere but its own list's routes that take keys is unknown there, so it tells nothing.
 */
export function verdict(holder: Holder, guard: Guard, list: string | undefined): Verdict {
  if (guard === "open") return "allowed";
  if (holder.kind === "none") return "no token";
  if (holder.kind === "unknown") return "unknown";
  if (holder.kind === "token") return TOKEN_RULES[guard.access][holder.access];
  if (guard.key === undefined || holder.list !== list) return "unknown";
  return KEY_RULES[guard.key][holder.access];
}

/** Whether a list exists now, was deleted, or was never made. */
export type ListState = "live" | "gone" | "never";

/** A list a probe is sent to, with a task of its own to read and one to change. */
export interface Target {
  readonly name: string;
  readonly state: ListState;
  readonly title: string;
  /** The id of a task whose title only this list holds. */
  readonly secretTask: number;
  /** The id of a task the probes rewrite to the same plain state. */
  readonly scratchTask: number;
}

/** One request a probe sends, and what it gets once the rules let it in. */
export interface Call {
  readonly method: string;
  readonly path: string;
  /** The list whose keys the route checks: the one the path names; none for /lists and documents. */
  readonly list: string | undefined;
  readonly guard: Guard;
  /** The status when let in, on a live list or a path of no list. */
  readonly status: number;
  /** On a list deleted or never made: 410 and 404, unless a PUT creates it (201). */
  readonly creates?: boolean;
  /** A DELETE of a task made for the probe just before, whose id the test appends to the path. */
  readonly doomedTask?: boolean;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly events?: boolean;
}

/** An id no key is given: a revocation the rules let in answers the contract's 404 for it, revoking nothing. */
export const UNKNOWN_KEY_ID = "aaaaaaaaaaaaaaaa";
/**
 * An If-Match naming no version: a list's DELETE the rules let in answers 412 and keeps the list, so
 * every probe meets the same lists.
 */
export const STALE = '"stale"';

/** A task a probe adds, and the state the probes rewrite a list's scratch task to. */
const PROBE_TASK = { title: "Probe", completed: false };
export const SCRATCH_TASK = { title: "Scratch", completed: false };
const READ = { access: "read" } as const;
const WRITE = { access: "write" } as const;
const JSON_TYPE = { "Content-Type": "application/json" };
const PATCH_TYPE = { "Content-Type": "application/merge-patch+json" };

/** Every route and method of a list's tasks, under `prefix`, guarded for the keys of `list`. */
function taskCalls(prefix: string, list: string, target: Target): Call[] {
  const read = { list, guard: { ...READ, key: "read" } } as const;
  const write = { list, guard: { ...WRITE, key: "write" } } as const;
  const open = { list, guard: "open", status: 405 } as const;
  const task = `${prefix}/tasks/${target.secretTask}`;
  const scratch = `${prefix}/tasks/${target.scratchTask}`;
  return [
    { ...read, method: "GET", path: `${prefix}/tasks`, status: 200 },
    { ...read, method: "HEAD", path: `${prefix}/tasks`, status: 200 },
    { ...write, method: "POST", path: `${prefix}/tasks`, status: 200, body: PROBE_TASK, headers: JSON_TYPE },
    { ...open, method: "PUT", path: `${prefix}/tasks` },
    { ...read, method: "GET", path: task, status: 200 },
    { ...read, method: "HEAD", path: task, status: 200 },
    { ...write, method: "PUT", path: scratch, status: 200, body: SCRATCH_TASK, headers: JSON_TYPE },
    { ...write, method: "PATCH", path: scratch, status: 200, body: { completed: false }, headers: PATCH_TYPE },
    { ...write, method: "DELETE", path: `${prefix}/tasks/`, status: 204, doomedTask: true },
    { ...open, method: "POST", path: task },
    { ...read, method: "GET", path: `${prefix}/tasks/events`, status: 200, events: true },
    { ...read, method: "HEAD", path: `${prefix}/tasks/events`, status: 200, events: true },
    { ...open, method: "POST", path: `${prefix}/tasks/events` },
  ];
}

/** Every route and method of the API on `target`: its tasks (on both of the default list's paths), the list, its keys and its page. */
export function callsOn(target: Target): Call[] {
  const { name } = target;
  const manage = { list: name, guard: { ...WRITE, key: "manage" } } as const;
  const here = `/lists/${name}`;
  const calls = [...taskCalls(here, name, target)];
  if (name === "default") {
    calls.push(...taskCalls("", name, target));
    calls.push(
      ...taskCalls("", name, target)
        .filter((call) => call.path === "/tasks")
        .map(onIndexPhp),
    );
  }
  const titled = { title: target.title };
  calls.push(
    { list: name, guard: { ...READ, key: "read" }, method: "GET", path: here, status: 200 },
    { list: name, guard: { ...READ, key: "read" }, method: "HEAD", path: here, status: 200 },
    { ...manage, method: "PUT", path: here, status: 200, creates: true, body: titled, headers: JSON_TYPE },
    { ...manage, method: "PATCH", path: here, status: 200, body: titled, headers: PATCH_TYPE },
    { list: name, guard: "open", method: "POST", path: here, status: 405 },
    { ...manage, method: "GET", path: `${here}/keys`, status: 200 },
    { ...manage, method: "HEAD", path: `${here}/keys`, status: 200 },
    { ...manage, method: "POST", path: `${here}/keys`, status: 201, body: { access: "read" }, headers: JSON_TYPE },
    { list: name, guard: "open", method: "PUT", path: `${here}/keys`, status: 405 },
    { ...manage, method: "DELETE", path: `${here}/keys/${UNKNOWN_KEY_ID}`, status: 404 },
    { list: name, guard: "open", method: "GET", path: `${here}/keys/${UNKNOWN_KEY_ID}`, status: 405 },
    { list: name, guard: "open", method: "GET", path: `${here}/`, status: 200 },
  );
  // The default list cannot be deleted: 405 with its Allow, once a deployment's write is let in.
  const deleted = name === "default" ? 405 : 412;
  calls.push({ ...manage, method: "DELETE", path: here, status: deleted, headers: { "If-Match": STALE } });
  return calls;
}

function onIndexPhp(call: Call): Call {
  return { ...call, path: "/index.php" };
}

/** Every route and method of paths that name no list: /lists, the OpenAPI document and the home page. */
export const CALLS_OF_NO_LIST: readonly Call[] = [
  { list: undefined, guard: READ, method: "GET", path: "/lists", status: 200 },
  { list: undefined, guard: READ, method: "HEAD", path: "/lists", status: 200 },
  {
    list: undefined,
    guard: WRITE,
    method: "POST",
    path: "/lists",
    status: 201,
    body: { title: "Probe" },
    headers: JSON_TYPE,
  },
  { list: undefined, guard: "open", method: "DELETE", path: "/lists", status: 405 },
  { list: undefined, guard: "open", method: "GET", path: "/openapi.json", status: 200 },
  { list: undefined, guard: "open", method: "HEAD", path: "/openapi.json", status: 200 },
  { list: undefined, guard: "open", method: "POST", path: "/openapi.json", status: 405 },
  { list: undefined, guard: "open", method: "GET", path: "/", status: 200 },
];

/** The status a call the rules let in gets on `target`, by the list's state. */
export function statusOn(call: Call, target: Target): number {
  if (call.list === undefined || call.guard === "open" || target.state === "live") return call.status;
  if (call.creates === true) return 201;
  return target.state === "gone" ? 410 : 404;
}
