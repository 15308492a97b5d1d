// The rules that only time ends: how often a WebSocket subscriber is pinged, how long an event
// stream stays quiet before its keep-alive comment, how long a body may go silent. The contract's
// lengths, or shorter by TIME_SCALE, which the tests set so that a 20 s rule is seen in a second.
import { PING_INTERVAL_S } from "./socket-rules.ts";

/**
 * How long a body may go without a byte before it is refused with 408: far longer than any pause
 * of a client that is sending, short enough that stalled uploads cannot pile up (Deno has no time
 * limit of its own, and Node's is for the whole request).
 */
export const BODY_SILENCE_MS = 10_000;

/** Milliseconds of silence after which an SSE subscriber gets a comment, so that proxies keep it. */
export const KEEP_ALIVE_MS = 15_000;

/** The time rules a server applies, in milliseconds, each the contract's length times {@link TimeRules.scale}. */
export interface TimeRules {
  /** What every length is multiplied by, the runtimes' own time limits too: 1 but in tests (TIME_SCALE). */
  readonly scale: number;
  /** Between the pings a server sends each WebSocket subscriber. */
  readonly pingIntervalMs: number;
  /** Of silence before an event stream gets a keep-alive comment. */
  readonly keepAliveMs: number;
  /** Without a byte of a request's body before it is refused with 408. */
  readonly bodySilenceMs: number;
}

/** The time rules at `scale` times the contract's lengths. */
export function timeRules(scale = 1): TimeRules {
  return {
    scale,
    pingIntervalMs: scaledMs(scale, PING_INTERVAL_S * 1000),
    keepAliveMs: scaledMs(scale, KEEP_ALIVE_MS),
    bodySilenceMs: scaledMs(scale, BODY_SILENCE_MS),
  };
}

/** `ms` times `scale`, in whole milliseconds, and at least one: a limit of 0 would be none at all. */
export function scaledMs(scale: number, ms: number): number {
  return Math.max(1, Math.round(ms * scale));
}

/** A length in the whole seconds some runtimes take, and at least one, for the same reason. */
export function wholeSeconds(ms: number): number {
  return Math.max(1, Math.round(ms / 1000));
}
