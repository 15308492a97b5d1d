// The Idempotency-Keys of a list in PostgreSQL as a write needs them: the key it came with, and the
// oldest of its scope that one more would push out, read for the write rather than copied.
import type { Sql } from "postgres";
import { type KeyMatch, type KnownKeys, keysPushedOut } from "../../list/remembered-keys.ts";
import type { IdempotencyKey } from "../../list/writes.ts";
import { PREPARED } from "./postgres-database.ts";

/** The statements that read them: the key with its scope's count, and a scope's oldest keys. */
export function keyStatements(s: string): { readonly key: string; readonly oldestKeys: string } {
  return {
    key: `SELECT k.fingerprint, k.task_id, k.task_json,
  (SELECT c.keys FROM ${s}.idempotency_scopes c WHERE c.list = $1 AND c.scope = $2) AS kept
FROM (VALUES (1)) one LEFT JOIN ${s}.idempotency_keys k ON k.list = $1 AND k.scope = $2 AND k.key = $3`,
    oldestKeys: `SELECT key FROM ${s}.idempotency_keys WHERE list = $1 AND scope = $2 ORDER BY seq LIMIT $3`,
  };
}

/**
 * What a write with `key` to list `name` needs of its keys, as the database holds them when asked:
 * a key added since is refused by the table's unique index, and the write decided again.
 */
export async function storedKeys(
  sql: Sql,
  statements: ReturnType<typeof keyStatements>,
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
