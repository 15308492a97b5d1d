// Subscriptions opened with a list key end when the key is revoked or expires: the key is looked up
// in its list again whenever the store says its keys changed (PostgreSQL with LISTEN, a Durable
// Object waking the calls waiting in it), else every quarter second, so every store tells its
// subscribers within a second; and once more at its expiry.
import type { KeyRows } from "../engine/task-store.ts";
import { keyLives, type ListKey } from "../list/list-keys.ts";

/** How often a subscription's key is looked up again where the store tells of no change: well within a second. */
export const KEY_WATCH_MS = 250;
/** The longest delay a timer takes: a later expiry is waited for in steps of it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `revoked` once, when `key` no longer opens its list (`keys`): revoked, expired, or its list
 * deleted. Each subscription watches on its own: on Workers one request's timers may not do
 * another's I/O. The answer stops watching; call it when the subscription ends.
 */
export function watchKey(keys: KeyRows, key: ListKey, revoked: () => void, intervalMs = KEY_WATCH_MS): () => void {
  let looking = false;
  let again = false;
  let stopped = false;
  let expiry: ReturnType<typeof setTimeout> | undefined;
  const stops: (() => void)[] = [];
  const stop = () => {
    stopped = true;
    if (expiry !== undefined) clearTimeout(expiry);
    for (const each of stops) each();
  };
  const look = async (): Promise<void> => {
    if (stopped) return;
    if (looking) {
      again = true;
      return;
    }
    looking = true;
    try {
      const found = keyLives(key, Date.now()) ? await keys.byHash(key.hash) : undefined;
      if (!stopped && (found === undefined || !keyLives(found, Date.now()))) {
        stop();
        revoked();
      }
    } catch {
      // A store that cannot be reached now is asked again: the key is not taken as revoked.
    } finally {
      looking = false;
    }
    if (again) {
      again = false;
      await look();
    }
  };
  const expires = key.expires === null ? undefined : Date.parse(key.expires);
  const atExpiry = () => {
    if (expires === undefined || stopped) return;
    expiry = setTimeout(
      () => {
        // Past a timer's longest delay the expiry is still ahead: wait on.
        if (expires > Date.now()) atExpiry();
        else void look();
      },
      Math.min(Math.max(expires - Date.now() + 1, 0), MAX_TIMER_MS),
    );
  };
  if (keys.onChange === undefined) {
    const timer = setInterval(() => void look(), intervalMs);
    stops.push(() => clearInterval(timer));
    return stop;
  }
  stops.push(keys.onChange(() => void look()));
  atExpiry();
  // A revocation told before the listener was added is found by this first look.
  void look();
  return stop;
}
