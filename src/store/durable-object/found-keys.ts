// The keys a list's Durable Object found for this isolate lately, trusted for a moment: a GET with a
// list key is then one call to the object (its read), not two, and a revocation still reaches every
// isolate within the contract's 1 s.
import type { ListKey } from "../../list/list-keys.ts";
import type * as seam from "../store.ts";

/**
 * How long a key the object found is trusted without asking again, from when it was asked for: a
 * quarter of the 1 s in which a revocation must reach every isolate, as a subscription's key is watched.
 */
export const KEY_TRUST_MS = 250;
/** Found keys kept at most: a list holds at most 100, so any more are revoked ones no one presents. */
const MAX_FOUND = 128;

/**
 * The object's key rows (`rows`), with each key `byHash` finds trusted for {@link KEY_TRUST_MS} from
 * when it was asked for; a hash it does not find is asked for again every time. Every key found is
 * forgotten at once when this isolate revokes a key or deletes the list ({@link FoundKeys.forget}), or
 * when the object tells of a change to its keys, and a lookup under way meanwhile keeps nothing: the
 * subscriptions watching their key then ask the object itself.
 */
export class FoundKeys {
  readonly #found = new Map<string, { readonly key: ListKey; readonly until: number }>();
  /** Counts the times every key was forgotten, so that a lookup made across one keeps nothing. */
  #forgets = 0;
  readonly rows: seam.KeyRows;

  constructor(rows: seam.KeyRows) {
    const { onChange } = rows;
    this.rows = {
      all: () => rows.all(),
      add: (row, max) => rows.add(row, max),
      remove: async (id) => {
        this.forget();
        try {
          return await rows.remove(id);
        } finally {
          this.forget();
        }
      },
      byHash: (hash) => this.#byHash(rows, hash),
      ...(onChange === undefined
        ? {}
        : {
            onChange: (listener: () => void) =>
              onChange(() => {
                this.forget();
                listener();
              }),
          }),
    };
  }

  /** Forgets every key found: the next lookup of each asks the object. */
  forget(): void {
    this.#forgets++;
    this.#found.clear();
  }

  async #byHash(rows: seam.KeyRows, hash: string): Promise<ListKey | undefined> {
    const asked = Date.now();
    const found = this.#found.get(hash);
    if (found !== undefined && asked < found.until) return found.key;
    const forgets = this.#forgets;
    const key = await rows.byHash(hash);
    if (key === undefined || forgets !== this.#forgets) {
      this.#found.delete(hash);
      return key;
    }
    if (this.#found.size >= MAX_FOUND) this.#found.clear();
    this.#found.set(hash, { key, until: asked + KEY_TRUST_MS });
    return key;
  }
}
