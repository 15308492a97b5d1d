// This process's copy of one list in PostgreSQL: read through a ListMirror, told whether the list
// lives, and followed by the readers waiting for it to change.
import type { Sql } from "postgres";
import type { HeldCopy } from "../../engine/bounded-copies.ts";
import { ChangeSignal } from "../../engine/change-signal.ts";
import { missingRead, readOf } from "../../engine/list-read.ts";
import { CHANGES_CHUNK_BYTES, type ListChanges, ListMirror } from "../../engine/mirror.ts";
import type * as seam from "../../engine/task-store.ts";
import type { EncodedList } from "../../list/encoded-list.ts";
import { changesOf } from "./list-sql.ts";
import { type PostgresDatabase, PREPARED } from "./postgres-database.ts";

/** How a reader hears that other processes changed the list. */
export type Watch =
  /** Node, Bun and Deno: LISTEN on the schema's channel, one connection per process for every list. */
  | { readonly listen: true }
  /** Workers, where Hyperdrive carries no LISTEN: each reader asks the database again every `pollMs`. */
  | { readonly pollMs: number };

/** Tasks one catch-up query hands over at most, beside its {@link CHANGES_CHUNK_BYTES}: it bounds each query's scan. */
const CHUNK_TASKS = 100_000;

/**
 * What a copy costs per byte of the list's JSON, about: the encoded tasks in chunks with room to
 * grow, their index, and the journal of recent changes beside them.
 */
const BYTES_PER_LIST_BYTE = 2;

/** What a write is decided against: the list as the copy held it, and whether it lives. */
export interface WriteTarget {
  readonly state: seam.ListState;
  readonly list: EncodedList;
  /** Whether the copy caught up for this write: else it may be behind the list. */
  readonly current: boolean;
  readonly mirror: ListMirror;
}

/** The catch-up found no live list: it was deleted, or never created. */
class ListNotLive extends Error {
  readonly state: "gone" | "not-found";
  constructor(state: "gone" | "not-found") {
    super(`The list is ${state}`);
    this.state = state;
  }
}

/**
 * One list's copy in this process. Each read asks only for what changed after the copy's last
 * change, with the list's title and version, in one query; a list that is not live is read as
 * missing, and wakes every reader waiting on it.
 */
export class ListCopy implements HeldCopy {
  readonly #db: PostgresDatabase;
  readonly #name: string;
  readonly #shared: boolean;
  readonly #onRead: (copy: ListCopy) => void;
  #mirror: ListMirror;
  readonly #changes: ChangeSignal | undefined;
  readonly #pollMs: number | undefined;
  #state: seam.ListState = { state: "not-found" };
  #read: seam.ListRead | undefined;
  /** Aborted once a read finds the list missing: every reader waiting on it wakes and reads it so. */
  #missing = new AbortController();
  #waiting = 0;
  /**
   * Whether the list changed since the last read began: a notification with no reader waiting
   * reads nothing, and a reader that waits next goes to read at once.
   */
  #stale = false;
  /** The change the waiting readers were last woken for: each change the copy takes wakes them once. */
  #told = 0;
  /** The writes of this process to the list, one after another: each decides against the copy its previous left. */
  #writes: Promise<unknown> = Promise.resolve();

  /** `onRead` is told after each read, when the copy's size may have changed. */
  constructor(db: PostgresDatabase, name: string, watch: Watch, onRead: (copy: ListCopy) => void) {
    this.#db = db;
    this.#name = name;
    this.#onRead = onRead;
    this.#pollMs = "pollMs" in watch ? watch.pollMs : undefined;
    // A process that listens serves many readers from one copy, so their reads share questions.
    this.#shared = "listen" in watch;
    this.#mirror = new ListMirror({ shared: this.#shared });
    this.#changes = this.#shared ? new ChangeSignal(() => this.#mirror.held.changedBytes) : undefined;
  }

  get bytes(): number {
    return this.#state.state === "live" ? this.#mirror.current.usage.bytes * BYTES_PER_LIST_BYTE : 0;
  }

  get busy(): boolean {
    return this.#waiting > 0;
  }

  drop(): void {
    this.#mirror = new ListMirror({ shared: this.#shared });
    this.#read = undefined;
  }

  /**
   * Catches the copy up and reads it; with `sql`, on that client (a write's), else on one of its own.
   * `known` is what changed after a change, already read: the copy at that change takes it as the reply.
   */
  async read(sql?: Sql, known?: ListChanges): Promise<seam.ListRead> {
    const mirror = this.#mirror;
    this.#stale = false;
    try {
      // A write's read asks on its own client, or brings what it learnt: no other reader waits for it.
      const catchUp = (client: Sql) =>
        mirror.read(
          (instance, after) =>
            known !== undefined && known.instance === instance && known.after === after
              ? Promise.resolve(known)
              : this.#changesSince(client, instance, after),
          { alone: sql !== undefined || known !== undefined },
        );
      const version = await (sql === undefined ? this.#db.run("read", catchUp) : catchUp(sql));
      if (this.#missing.signal.aborted) this.#missing = new AbortController();
      // Whichever read brought a change wakes the readers waiting for it: the notification that
      // told of it may have come while none waited, and been taken by a reader that read it since.
      this.#tell();
      const state = this.#state;
      this.#read = readOf(this.#read, version, state);
      return this.#read;
    } catch (error) {
      if (!(error instanceof ListNotLive)) throw error;
      this.#state = { state: error.state };
      this.drop();
      this.#missing.abort();
      return missingRead(error.state);
    } finally {
      this.#onRead(this);
    }
  }

  /**
   * The list to decide a write against, read on the write's client: the copy as it is, or with
   * `current` once it caught up (from `known` when it fits). A copy that holds no live list catches
   * up first. A copy behind the list costs no question of its own: the write's answer brings what
   * changed since.
   */
  async target(sql: Sql, current: boolean, known?: ListChanges): Promise<WriteTarget> {
    const caughtUp = current || this.#state.state !== "live";
    if (caughtUp) await this.read(sql, known);
    const mirror = this.#mirror;
    return { state: this.#state, list: mirror.held, current: caughtUp, mirror };
  }

  /** Makes on the copy the change this process wrote, decided against `target` at its change `at`, and wakes its readers. */
  wrote(target: WriteTarget, at: number, apply: () => void): void {
    if (this.#mirror !== target.mirror) return;
    target.mirror.wrote(target.list, at, apply);
    this.#tell();
  }

  /**
   * Runs `write` after this process's writes to the list before it, so that they do not all decide
   * against one change number and all but one start again. Workers run it at once: a request may
   * not wait on a promise another resolves.
   */
  serial<T>(write: () => Promise<T>): Promise<T> {
    if (!this.#shared) return write();
    const run = this.#writes.then(write, write);
    this.#writes = run.catch(() => {});
    return run;
  }

  /**
   * Told that the list changed (a notification, or the listening connection made again): its readers
   * read it. A notification of change `change` that the copy holds already (this process's own
   * write, made on the copy) leaves it as it is.
   */
  changed(change?: number): void {
    if (change !== undefined && this.#mirror.current.change >= change) return;
    this.#stale = true;
    if (this.#waiting === 0) return;
    this.read().catch(() => {});
  }

  /** Wakes the waiting readers once for each change the copy takes. */
  #tell(): void {
    const change = this.#mirror.current.change;
    if (change === this.#told) return;
    this.#told = change;
    this.#changes?.notify();
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    const changes = this.#changes;
    if (changes === undefined) return this.#poll(signal);
    if (this.#missing.signal.aborted || this.#stale) return Promise.resolve();
    const either = AbortSignal.any([signal, this.#missing.signal]);
    this.#waiting++;
    const waited =
      bytesPast === undefined
        ? changes.wait(() => this.#mirror.current.change > change, either)
        : changes.waitPast(bytesPast, either);
    return waited.finally(() => {
      this.#waiting--;
    });
  }

  /** Each reader asks again on its own timer: on Workers one request may not wake another. */
  #poll(signal: AbortSignal): Promise<void> {
    return new Promise((done) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", finish);
        done();
      };
      const timer = setTimeout(finish, this.#pollMs);
      signal.addEventListener("abort", finish, { once: true });
    });
  }

  /** What changed after change `after` of list `instance` (see `ChangesSince`), and the list's title and version. */
  async #changesSince(sql: Sql, instance: string | undefined, after: number): Promise<ListChanges> {
    const parameters = [instance ?? "", after, CHANGES_CHUNK_BYTES, CHUNK_TASKS, this.#name];
    const rows = await sql.unsafe(this.#db.sql.changes, parameters, PREPARED);
    const [first] = rows;
    if (first === undefined) {
      const [found] = await sql.unsafe(this.#db.sql.state, [this.#name], PREPARED);
      // Made between the two queries: asked again.
      if (found?.live === true) return this.#changesSince(sql, instance, after);
      throw new ListNotLive(found === undefined ? "not-found" : "gone");
    }
    const title = JSON.parse(String(first.title_json)) as string;
    const version = String(first.version);
    const state = this.#state;
    if (state.state !== "live" || state.title !== title || state.version !== version) {
      this.#state = { state: "live", title, version };
    }
    return changesOf(rows);
  }
}
