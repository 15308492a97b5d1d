import { expect } from "vitest";
import { createApp, type TaskApp } from "../../src/app.ts";
import { type EnvRecord, parseAppConfig } from "../../src/config.ts";
import type { HeldTaskStore } from "../../src/engine/held-lists.ts";
import { MemoryStore } from "../../src/engine/memory.ts";
import type { KeyRows, TaskStore } from "../../src/engine/task-store.ts";
import type { JsonBytes } from "../../src/list/list-version.ts";
import { type SqliteFileConnection, SqliteFileLists, type StoreLog } from "../../src/store/sqlite/file-store.ts";

/** Builds the app the way a runtime entry does: configuration from an environment record. */
export function appFrom(env: EnvRecord = {}, store: TaskStore = new MemoryStore()): TaskApp {
  return createApp({ store, config: parseAppConfig(env) });
}

/** One way to reach the list: the environment that sets it up and the full path to request. */
interface EntryPoint {
  readonly env: EnvRecord;
  readonly path: string;
}

/** Every way the contract says the list is reached: both paths, with and without a base path. */
export const ENTRY_POINTS: readonly EntryPoint[] = [
  { env: {}, path: "/tasks" },
  { env: {}, path: "/index.php" },
  { env: { BASE_PATH: "/api" }, path: "/api/tasks" },
  { env: { BASE_PATH: "/api" }, path: "/api/index.php" },
];

/** A task as the contract shapes it. */
export interface TaskBody {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

const encoder = new TextEncoder();

/** Sends `value` as a JSON POST body with `Content-Type: application/json`. */
export function postJson(app: TaskApp, path: string, value: unknown): Promise<Response> {
  return postText(app, path, JSON.stringify(value));
}

/** Sends raw text as a POST body with `Content-Type: application/json`. */
export async function postText(app: TaskApp, path: string, text: string): Promise<Response> {
  return app.request(path, { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
}

/** Sends bytes as a POST body. A byte body gets no automatic `Content-Type`, so only `headers` are sent. */
export async function postBytes(
  app: TaskApp,
  path: string,
  bytes: Uint8Array<ArrayBuffer>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return app.request(path, { method: "POST", body: bytes, headers });
}

/** The bytes of a list body, its parts joined. */
export function joinParts(body: JsonBytes | undefined): Uint8Array {
  const parts = body?.parts ?? [];
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}

/** UTF-8 bytes of a text. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text) as Uint8Array<ArrayBuffer>;
}

/** A valid task body padded with trailing whitespace (still valid JSON) to exactly `size` bytes. */
export function paddedTaskBody(size: number): Uint8Array<ArrayBuffer> {
  const json = JSON.stringify({ title: "Padded", completed: false });
  expect(size).toBeGreaterThanOrEqual(json.length);
  return utf8(json.padEnd(size, " "));
}

/** What a GET shows of the list: its ETag and its exact body. */
interface ListSnapshot {
  readonly etag: string | null;
  readonly text: string;
}

/** Reads the list with a plain GET. */
export async function snapshot(app: TaskApp, path: string): Promise<ListSnapshot> {
  const res = await app.request(path);
  expect(res.status).toBe(200);
  return { etag: res.headers.get("ETag"), text: await res.text() };
}

/** Reads the list with a plain GET and parses it. */
export async function readTasks(app: TaskApp, path: string): Promise<TaskBody[]> {
  const res = await app.request(path);
  expect(res.status).toBe(200);
  return (await res.json()) as TaskBody[];
}

/** Checks an error response: its status, `Content-Type: application/json`, and a body of exactly `{"message": ...}`. */
export async function expectJsonError(res: Response, status: number, message: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("Content-Type")).toBe("application/json");
  expect(await res.text()).toBe(JSON.stringify({ message }));
}

/** Sends a request that must fail, and checks its error response and that the list did not change. */
export async function expectRefused(
  app: TaskApp,
  path: string,
  send: () => Response | Promise<Response>,
  status: number,
  message: string,
): Promise<void> {
  const before = await snapshot(app, path);
  await expectJsonError(await send(), status, message);
  expect(await snapshot(app, path)).toEqual(before);
}

/** The exact bytes the contract expects for a task: keys id, title, completed, in that order. */
export function taskText(task: TaskBody): string {
  return `{"id":${task.id},"title":${JSON.stringify(task.title)},"completed":${task.completed}}`;
}

/** The default list of the SQLite file `connection` opens, as a server opens the file. */
export function sqliteDefaultList(connection: SqliteFileConnection, log?: StoreLog): HeldTaskStore {
  return new SqliteFileLists(connection, log).list("default");
}

/** A store's keys that fail each call with `fail`, for a store double that fails. */
export function failingKeys(fail: () => never | Promise<never>): KeyRows {
  return { all: fail, add: fail, remove: fail, byHash: fail };
}
