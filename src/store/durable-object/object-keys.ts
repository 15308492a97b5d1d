// A list's keys in its own Durable Object as a Worker reaches them: the RPC methods by which it reads,
// adds, revokes and checks them, one call each, and waits in the object for a revocation.
import type * as seam from "../../engine/task-store.ts";
import type { ListKey } from "../../list/list-keys.ts";
import type { Stored } from "./stored.ts";

/** How long one call waits in the object for a revocation before it is asked again. */
const KEY_WAIT_MS = 30_000;
/** How long a Worker pauses before it waits again after a wait failed. */
const KEY_RETRY_MS = 1000;

/** The key methods of a list's object: a request's key is checked by one call of `keyOf`, to its list's object alone. */
export interface ListObjectKeys {
  keys(): readonly ListKey[] | seam.ListMissing | Promise<readonly ListKey[] | seam.ListMissing>;
  addKey(row: ListKey, max: number): Stored<seam.KeyAdded>;
  removeKey(id: string): Stored<seam.KeyRemoved>;
  keyOf(hash: string): ListKey | undefined | Promise<ListKey | undefined>;
  /**
   * Answers the object's mark of its keys: at once if it is not `seen`, else once a key is revoked
   * or the list deleted (a new mark), or after `waitMs` or {@link stopKeyWait} with `key` (`seen`).
   */
  nextKeyChange(seen: string | undefined, waitMs: number, key: string): Promise<string>;
  /** Ends the wait of {@link nextKeyChange} made with `key`: its subscriber has gone. */
  stopKeyWait(key: string): void | Promise<void>;
}

/** The keys as a Worker reaches them: each method one call to the list's object, through `call`. */
export function objectKeyRows(call: <T>(work: (object: ListObjectKeys) => Stored<T>) => Promise<T>): seam.KeyRows {
  return {
    all: () => call((object) => object.keys()),
    add: (row, max) => call<seam.KeyAdded>((object) => object.addKey(row, max)),
    remove: (id) => call<seam.KeyRemoved>((object) => object.removeKey(id)),
    byHash: (hash) => call((object) => object.keyOf(hash)),
    onChange: (listener) => waitForKeyChanges(call, listener),
  };
}

/**
 * Calls `listener` whenever the object's keys may have changed, each wait one call from the caller's
 * own request (a Worker's request may do no I/O for another's), until the answer is called. A failed
 * wait is tried again after a pause, and the first answer after it (or the first of all) calls
 * `listener` once: a revocation may have come meanwhile, or before the wait began.
 */
function waitForKeyChanges(
  call: <T>(work: (object: ListObjectKeys) => Stored<T>) => Promise<T>,
  listener: () => void,
): () => void {
  const key = crypto.randomUUID();
  let stopped = false;
  let seen: string | undefined;
  void (async () => {
    while (!stopped) {
      try {
        const mark = await call((object) => object.nextKeyChange(seen, KEY_WAIT_MS, key));
        const changed = mark !== seen;
        seen = mark;
        if (changed && !stopped) listener();
      } catch {
        // Not taken as a revocation: the mark is forgotten so the next answer looks the key up.
        seen = undefined;
        await new Promise((done) => setTimeout(done, KEY_RETRY_MS));
      }
    }
  })();
  return () => {
    stopped = true;
    call((object) => object.stopKeyWait(key)).catch(() => {});
  };
}
