// The Idempotency-Keys of a list in PostgreSQL as a write needs them: the key it came with, and the
// oldest of its scope that one more would push out, read for the write rather than copied.
import type { Sql } from "postgres";
import { type KeyMatch, type KnownKeys, keysPushedOut } from "../../list/remembered-keys.ts";
import type { IdempotencyKey } from "../../list/writes.ts";
import type { Statements } from "./list-sql.ts";
import { PREPARED } from "./postgres-database.ts";

/**
 * What a write with `key` to list `name` needs of its keys, as the database holds them when asked:
 * a key added since is refused by the table's unique index, and the write decided again.
 */
export async function storedKeys(
  sql: Sql,
  statements: Pick<Statements, "key" | "oldestKeys">,
  name: string,
  key: IdempotencyKey,
  maxKeys: number,
): Promise<KnownKeys> {
  const [row] = await sql.unsafe(statements.key, [name, key.scope, key.key], PREPARED);
  const kept = Number(row?.kept ?? 0);
  const found =
    typeof row?.task_json === "string"
      ? { fingerprint: String(row.fingerprint), taskId: Number(row.task_id), json: row.task_json }
      : undefined;
  // Only the keys one more could push out: a scope holds up to MAX_IDEMPOTENCY_KEYS.
  const past = kept + 1 - maxKeys;
  const oldest =
    found === undefined && past > 0
      ? (await sql.unsafe(statements.oldestKeys, [name, key.scope, past], PREPARED)).map((old) => String(old.key))
      : [];
  return new StoredKeys(found, kept, oldest);
}

/** A key the list remembers: what it came with, and the task it added as first returned. */
interface FoundKey {
  readonly fingerprint: string;
  readonly taskId: number;
  readonly json: string;
}

/** The keys a write read: the one it came with, if known, and its scope's count and oldest. */
class StoredKeys implements KnownKeys {
  readonly #found: FoundKey | undefined;
  readonly #kept: number;
  readonly #oldest: readonly string[];

  constructor(found: FoundKey | undefined, kept: number, oldest: readonly string[]) {
    this.#found = found;
    this.#kept = kept;
    this.#oldest = oldest;
  }

  match(key: IdempotencyKey): KeyMatch {
    const found = this.#found;
    if (found === undefined) return undefined;
    return found.fingerprint === key.fingerprint ? { taskId: found.taskId, json: found.json } : "another-task";
  }

  pushedOut(_scope: string, max: number): string[] {
    return keysPushedOut(this.#oldest, this.#kept, max);
  }

  /** The database remembers the key with the change that added its task. */
  remember(): void {}
}
