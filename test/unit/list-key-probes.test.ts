// Every credential on every route and method of its list, another and the default one, in process on
// memory and a SQLite file: each answer is the access table's, and a refusal shows no byte of a list.
import fc from "fast-check";
import { describe, expect, onTestFinished, test, vi } from "vitest";
import type { TaskApp } from "../../src/app.ts";
import { LIST_STORES, type ListStore, listsApp } from "./list-helpers.ts";
import {
  CALLS_OF_NO_LIST,
  type Call,
  callsOn,
  type Holder,
  SCRATCH_TASK,
  statusOn,
  type Target,
  type Verdict,
  verdict,
} from "./list-key-probe-rules.ts";

const READ = "probe-read-token-0123456789";
const WRITE = "probe-write-token-0123456789";
/** The challenge of each 401: none on a 403. */
const CHALLENGES: Partial<Record<Verdict, string>> = {
  "no token": 'Bearer realm="tasks"',
  unknown: 'Bearer realm="tasks", error="invalid_token"',
};
const HOUR = 3_600_000;
/** The lists made for the probes; `gone` is deleted once its key is made. */
const NAMED = ["alpha", "beta", "gone"] as const;
type ListName = "default" | (typeof NAMED)[number];
/** The lists a probe aims at: those made, and a name never made. */
const TARGET_NAMES = ["default", ...NAMED, "never"] as const;
const KEY_SHAPED = /^[A-Za-z0-9_-]{43}$/;

/** A credential a probe presents: the token it sends (none: no Authorization), and what it is to the rules. */
interface Credential {
  readonly name: string;
  readonly token: string | undefined;
  readonly holder: Holder;
}

/** The lists and credentials every probe of one store meets. */
interface World {
  readonly app: TaskApp;
  readonly credentials: readonly Credential[];
  readonly targets: Record<ListName, Target>;
  /** For each list, a string only its title and its secret task hold. */
  readonly markers: ReadonlyMap<string, string>;
  nextName: number;
}

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("");

async function send(app: TaskApp, method: string, path: string, token?: string, body?: unknown, more = {}) {
  const headers: Record<string, string> = { ...more };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] ??= "application/json";
  return app.request(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
}

async function made<T>(res: Response, status: number): Promise<T> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return (text === "" ? undefined : JSON.parse(text)) as T;
}

async function newKey(app: TaskApp, list: string, body: object): Promise<{ id: string; key: string }> {
  return made(await send(app, "POST", `/lists/${list}/keys`, WRITE, body), 201);
}

async function addTask(app: TaskApp, list: string, title: string): Promise<number> {
  return (
    await made<{ id: number }>(await send(app, "POST", `/lists/${list}/tasks`, WRITE, { title, completed: false }), 200)
  ).id;
}

/**
 * Lists default, alpha, beta and gone, each titled and holding a task with a marker of its own, a
 * read and a write key of each live list, a revoked key, an expired one and a deleted list's key.
 * Date alone is faked, so the expired key's expiry passes without waiting.
 */
async function newWorld(store: ListStore): Promise<World> {
  vi.useFakeTimers({ toFake: ["Date"] });
  onTestFinished(() => {
    vi.useRealTimers();
  });
  const app = listsApp({ READ_TOKENS: READ, WRITE_TOKENS: WRITE }, store);
  const markers = new Map<string, string>();
  const targets: Record<string, Target> = {};
  const credentials: Credential[] = [
    { name: "no token", token: undefined, holder: { kind: "none" } },
    { name: "READ_TOKENS", token: READ, holder: { kind: "token", access: "read" } },
    { name: "WRITE_TOKENS", token: WRITE, holder: { kind: "token", access: "write" } },
  ];
  for (const name of ["default", ...NAMED]) {
    const marker = `zq${randomHex(8)}`;
    markers.set(name, marker);
    const title = `Title ${marker}`;
    await made(await send(app, "PUT", `/lists/${name}`, WRITE, { title }), name === "default" ? 200 : 201);
    const secretTask = await addTask(app, name, `Task ${marker}`);
    const scratchTask = await addTask(app, name, SCRATCH_TASK.title);
    targets[name] = { name, state: name === "gone" ? "gone" : "live", title, secretTask, scratchTask };
    if (name === "gone") continue;
    for (const access of ["read", "write"] as const) {
      const { key } = await newKey(app, name, { access });
      credentials.push({ name: `${name}'s ${access} key`, token: key, holder: { kind: "key", access, list: name } });
    }
  }
  const revoked = await newKey(app, "alpha", { access: "write" });
  await made(await send(app, "DELETE", `/lists/alpha/keys/${revoked.id}`, WRITE), 204);
  const expired = await newKey(app, "beta", { access: "write", expires: new Date(Date.now() + HOUR).toISOString() });
  const ofDeleted = await newKey(app, "gone", { access: "write" });
  await made(await send(app, "DELETE", "/lists/gone", WRITE), 204);
  vi.setSystemTime(Date.now() + 2 * HOUR);
  const dead = { kind: "unknown" } as const;
  const live = credentials.find((credential) => credential.holder.kind === "key")?.token ?? "";
  credentials.push(
    { name: "a revoked key", token: revoked.key, holder: dead },
    { name: "an expired key", token: expired.key, holder: dead },
    { name: "a deleted list's key", token: ofDeleted.key, holder: dead },
    { name: "a live key but its last character", token: nearMiss(live), holder: dead },
  );
  return { app, credentials, targets: targets as World["targets"], markers, nextName: 0 };
}

/** `key` with its last character changed: one character from a key that opens a list. */
function nearMiss(key: string): string {
  return `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
}

/** The list a probe aims at: one that exists, the deleted one, or a name never made (new each time, as a PUT may make it). */
function targetOf(world: World, name: ListName | "never"): Target {
  if (name !== "never") return world.targets[name];
  world.nextName += 1;
  return { name: `never-${world.nextName}`, state: "never", title: "Never", secretTask: 1, scratchTask: 2 };
}

/** Sends `call` on `target` with `credential`, and checks its answer against the rules. */
async function probe(world: World, credential: Credential, target: Target, call: Call): Promise<void> {
  const { app } = world;
  let path = call.path;
  if (call.doomedTask === true) {
    path += target.state === "live" ? await addTask(app, target.name, "Doomed") : "1";
  }
  const res = await send(app, call.method, path, credential.token, call.body, call.headers);
  const expected = verdict(credential.holder, call.guard, call.list);
  const allowed = expected === "allowed";
  const status = allowed ? statusOn(call, target) : expected === "forbidden" ? 403 : 401;
  const stream = call.events === true && res.status === 200;
  // A stream the rules let in: its headers alone, then it is let go.
  if (stream) await res.body?.cancel();
  const text = stream ? "" : await res.text();
  // What a list's title or tasks may show in: an answer to a deployment token, or to a key on its own list.
  const mayShow = (list: string) =>
    allowed && (credential.holder.kind === "token" || (credential.holder.kind === "key" && list === call.list));
  const refusal = !allowed && call.method !== "HEAD";
  const answer = {
    status: res.status,
    challenge: res.headers.get("WWW-Authenticate"),
    eventStream: stream && /^text\/event-stream/.test(res.headers.get("Content-Type") ?? ""),
    refusalFields: refusal ? Object.keys(JSON.parse(text)) : [],
    listsShown: [...world.markers]
      .filter(([list, marker]) => !mayShow(list) && text.includes(marker))
      .map(([list]) => list),
  };
  expect(answer, `${credential.name}: ${call.method} ${path} (${expected}): ${text.slice(0, 500)}`).toEqual({
    status,
    challenge: CHALLENGES[expected] ?? null,
    eventStream: call.events === true && status === 200,
    refusalFields: refusal ? ["message"] : [],
    listsShown: [],
  });
  // A PUT the rules let in made the list: the deleted one is deleted again, so it stays as the table says.
  if (call.creates === true && target.state === "gone" && res.status === 201) {
    await made(await send(app, "DELETE", `/lists/${target.name}`, WRITE), 204);
  }
}

describe.each(LIST_STORES)("list keys probed, %s", (store) => {
  test("every credential on every route and method of every list answers as the table says", async () => {
    const world = await newWorld(store);
    const junk: Credential = { name: "a junk key", token: `lk_${"x".repeat(43)}`, holder: { kind: "unknown" } };
    let probes = 0;
    for (const credential of [...world.credentials, junk]) {
      for (const call of CALLS_OF_NO_LIST) await probe(world, credential, world.targets.default, call);
      probes += CALLS_OF_NO_LIST.length;
      for (const name of TARGET_NAMES) {
        const count = callsOn(targetOf(world, name)).length;
        for (let call = 0; call < count; call++) {
          const target = targetOf(world, name);
          await probe(world, credential, target, callsOn(target)[call] as Call);
          probes += 1;
        }
      }
    }
    expect(probes).toBeGreaterThanOrEqual(2000);
  });

  test("random credentials, junk keys among them, on random routes of random lists, in any order", async () => {
    const world = await newWorld(store);
    const credentialArb = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...world.credentials) },
      fc
        .stringMatching(KEY_SHAPED)
        .map((rest): Credential => ({ name: `junk lk_${rest}`, token: `lk_${rest}`, holder: { kind: "unknown" } })),
    );
    const probeArb = fc.record({
      credential: credentialArb,
      target: fc.constantFrom(...TARGET_NAMES),
      call: fc.nat(),
    });
    await fc.assert(
      fc.asyncProperty(probeArb, async ({ credential, target: name, call }) => {
        const target = targetOf(world, name);
        const calls = [...callsOn(target), ...CALLS_OF_NO_LIST];
        await probe(world, credential, target, calls[call % calls.length] as Call);
      }),
      { numRuns: 500 },
    );
  });
});
