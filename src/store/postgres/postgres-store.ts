// One list in a PostgreSQL schema, as a request uses it: its reads from this process's copy, its
// writes decided against that copy by the list's rules and written if no other change came first.
import type { Sql } from "postgres";
import type { ListLimits } from "../../config.ts";
import type { ListChanges } from "../../engine/mirror.ts";
import type * as seam from "../../engine/task-store.ts";
import { StoreUnavailableError } from "../../errors.ts";
import { type Decision, HeldList, type ListChange } from "../../list/held-list.ts";
import type { ListUsage } from "../../list/limits.ts";
import type { NewTask } from "../../list/task.ts";
import { missingList, type WriteResult } from "../../list/writes.ts";
import { applyParameters, caughtUp } from "./apply-sql.ts";
import { postgresKeyRows } from "./key-rows.ts";
import type { ListCopy } from "./list-copy.ts";
import { type PostgresDatabase, PREPARED } from "./postgres-database.ts";
import { storedKeys } from "./stored-keys.ts";

/**
 * Attempts at one write, each meeting another process's change, before it answers 503. Writes of
 * one process follow one another, so a write meets at most those of the other processes, each
 * once per change it loses to: it gets through long before this.
 */
const MAX_ATTEMPTS = 100;

/** What the apply function answered: for a conflict, the changes since when it handed them over. */
type Applied =
  | { readonly outcome: "applied" | seam.ListMissing["outcome"] }
  | { readonly outcome: "conflict"; readonly since?: ListChanges | undefined };

/**
 * List `name` in a PostgreSQL schema shared by every process and isolate that uses it, whether or
 * not it exists. A read goes to this process's copy of the list ({@link ListCopy}), which asks only
 * for what changed after its last change with the list's title and version, in one query: a
 * current copy costs one small query and responds 304. Each write is decided by the list's rules
 * (list/held-list.ts) against the copy, and written by one call of apply-sql.ts's function only if
 * the list is still at the change decided against; its UPDATE holds the list's own row until it
 * commits, so ids are contiguous, commits happen in change order, a reader asking for the changes
 * after its last never skips one that commits late, and a write to another list never waits for it.
 */
export class PostgresStore implements seam.TaskStore {
  readonly #db: PostgresDatabase;
  readonly #name: string;
  readonly #copy: () => ListCopy;
  /** The list's keys: each of their reads and writes is one statement. */
  readonly keys: seam.KeyRows;

  /**
   * `copy` gives this process's copy of the list, asked for at each read: copies may be dropped
   * between; `keysChanged`, where this process listens, tells of every process's revocations.
   */
  constructor(
    db: PostgresDatabase,
    name: string,
    copy: () => ListCopy,
    keysChanged?: (listener: () => void) => () => void,
  ) {
    this.#db = db;
    this.#name = name;
    this.#copy = copy;
    this.keys = postgresKeyRows(db, name, keysChanged);
  }

  read(): Promise<seam.ListRead> {
    return this.#copy().read();
  }

  nextChange(change: number, signal: AbortSignal, bytesPast?: number): Promise<void> {
    return this.#copy().nextChange(change, signal, bytesPast);
  }

  state(): Promise<seam.ListState> {
    return this.#db.run("read", async (sql) => {
      const [row] = await sql.unsafe(this.#db.sql.listState, [this.#name], PREPARED);
      if (row === undefined) return { state: "not-found" } as const;
      if (row.live !== true) return { state: "gone" } as const;
      return {
        state: "live",
        title: JSON.parse(String(row.title_json)) as string,
        version: String(row.version),
      } as const;
    });
  }

  append(task: NewTask, limits: ListLimits, key?: seam.IdempotencyKey): Promise<seam.AppendResult | seam.ListMissing> {
    return this.#write((held) => held.append(task, limits, key), key && { key, maxKeys: limits.maxKeys });
  }

  update(id: number, patch: seam.TaskPatch, limits: ListLimits, ifMatch?: seam.IfMatch) {
    return this.#write((held) => held.update(id, patch, limits, ifMatch));
  }

  remove(id: number, ifMatch?: seam.IfMatch): Promise<seam.RemoveResult | seam.ListMissing> {
    return this.#write((held) => held.remove(id, ifMatch));
  }

  /**
   * Decides a write against this process's copy of the list and writes its change if the list is
   * still at the change decided against; else, or when it changes nothing on a copy that may be
   * behind, catches the copy up and decides again. Every attempt that fails met another
   * process's change, which was written: the list moves on, and a write starts again at most
   * {@link MAX_ATTEMPTS} times before it answers 503.
   */
  #write<R extends WriteResult>(
    decide: (held: HeldList) => Decision<R>,
    keyed?: { readonly key: seam.IdempotencyKey; readonly maxKeys: number },
  ): Promise<R | seam.ListMissing> {
    const copy = this.#copy();
    // One client for every attempt: on a Worker each client is a connection of its own.
    return copy.serial(() =>
      this.#db.run("write", async (sql) => {
        let current = false;
        let known: ListChanges | undefined;
        for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
          const target = await copy.target(sql, current, known);
          const { state } = target;
          if (state.state !== "live") return missingList(state.state);
          // Read after the copy, so that a key added since the copy's change is known or refused by the index.
          const keys = keyed && (await storedKeys(sql, this.#db.sql, this.#name, keyed.key, keyed.maxKeys));
          const at = target.list.change;
          const held = new HeldList(target.list, keys);
          const { result, change } = decide(held);
          current = true;
          if (change === undefined) {
            if (target.current) return result;
            continue;
          }
          const applied = await this.#apply(sql, at, change, result.usage);
          if (applied.outcome === "applied") {
            copy.wrote(target, at, () => held.apply(change));
            return result;
          }
          if (applied.outcome !== "conflict") return { outcome: applied.outcome };
          known = applied.since;
        }
        throw new StoreUnavailableError(`List ${this.#name} changed under each of ${MAX_ATTEMPTS} attempts at a write`);
      }),
    );
  }

  /**
   * Writes `change`, decided at change `at`, if the list is still live at that change; else, with
   * the changes since when the database handed them over.
   */
  async #apply(sql: Sql, at: number, change: ListChange, usage: ListUsage): Promise<Applied> {
    const parameters = applyParameters(this.#name, at, change, usage, this.#db.schema);
    try {
      const rows = await sql.unsafe(this.#db.sql.apply, parameters as never[], PREPARED);
      const outcome = String(rows[0]?.outcome) as Applied["outcome"];
      return outcome === "conflict" ? { outcome, since: caughtUp(at, rows) } : { outcome };
    } catch (error) {
      // Another process added the same Idempotency-Key since its keys were read: decided again, it replays.
      if (error instanceof Error && "code" in error && error.code === "23505") return { outcome: "conflict" };
      throw error;
    }
  }
}
