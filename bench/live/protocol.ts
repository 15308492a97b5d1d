// What the harness and its subscriber client processes tell each other, and the clock they share.

/** A monotonic clock in milliseconds, the same in every process of the machine (CLOCK_MONOTONIC). */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** What the harness asks of a client process. */
export type ClientOrder =
  /**
   * Open `count` streams of `path`; events of changes `firstId` to `firstId + posts - 1` are measured
   * (in a fresh list, a created task's change number is its id; edits take the next numbers).
   */
  | {
      readonly type: "open";
      readonly port: number;
      readonly path: string;
      readonly count: number;
      readonly firstId: number;
      readonly posts: number;
    }
  /**
   * The times (ms, {@link now}) at which each POST's or PATCH's answer reached the harness, by change
   * (NaN for changes to leave out): latencies of the others follow.
   */
  | { readonly type: "answers"; readonly times: readonly number[] }
  /** Close every stream and exit. */
  | { readonly type: "close" };

/** What a client process tells the harness. */
export type ClientReport =
  | { readonly type: "opened" }
  | { readonly type: "failed"; readonly message: string }
  /** Every stream still open got the event of the task at `index`. */
  | { readonly type: "delivered"; readonly index: number }
  | {
      readonly type: "latencies";
      /** Milliseconds from a POST's answer to its event, one per event received. */
      readonly latencies: Float64Array;
      /** Events that never came: (streams × tasks) minus those received. */
      readonly missed: number;
      /** Events received twice, or of tasks not measured. */
      readonly unexpected: number;
      /** Streams that ended before they were closed. */
      readonly ended: number;
    };
