// Subscriptions opened with a list key end when the key is revoked or expires: the key is looked up
// in its list again every quarter second, so every store (in this process, a Durable Object,
// PostgreSQL from any process) tells its subscribers within a second.
import { keyLives, type ListKey } from "../list/list-keys.ts";
import type { KeyRows } from "../store/store.ts";

/** How often a subscription's key is looked up again: well within the second a revocation has to reach it. */
export const KEY_WATCH_MS = 250;

/**
 * Calls `revoked` once, when `key` no longer opens its list (`keys`): revoked, expired, or its list
 * deleted. Each subscription watches on its own timer: on Workers one request's timers may not do
 * another's I/O. The answer stops watching; call it when the subscription ends.
 */
export function watchKey(keys: KeyRows, key: ListKey, revoked: () => void, intervalMs = KEY_WATCH_MS): () => void {
  let looking = false;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(async () => {
    if (looking || stopped) return;
    looking = true;
    try {
      const found = keyLives(key, Date.now()) ? await keys.byHash(key.hash) : undefined;
      if (!stopped && (found === undefined || !keyLives(found, Date.now()))) {
        stop();
        revoked();
      }
    } catch {
      // A store that cannot be reached now is asked again next turn: the key is not taken as revoked.
    } finally {
      looking = false;
    }
  }, intervalMs);
  return stop;
}
