// A version's backlog from change 0, built once for every subscriber that catches up on that
// version: each batch is written by the first to reach it and sent as it is to the others.
import type { EventBatch, EventFormat } from "./list-version.ts";

/**
 * Lists whose JSON is at most this size share their backlogs: about 1.3 times as many bytes a
 * format, held while subscribers catch up, which a Worker's 128 MB isolate has room for beside a
 * list this size, not beside one of the 24 MiB it may hold. Larger lists build one per subscriber.
 */
export const SHARED_LIST_BYTES = 8 * 1024 * 1024;

/** Batches built once and read by many, each reader from the first at its own pace. */
class SharedBatches {
  readonly batchBytes: number;
  readonly #built: EventBatch[] = [];
  #source: Iterator<EventBatch> | undefined;

  constructor(source: Iterator<EventBatch>, batchBytes: number) {
    this.#source = source;
    this.batchBytes = batchBytes;
  }

  *read(): Generator<EventBatch> {
    for (let at = 0; ; at++) {
      if (at === this.#built.length) {
        const next = this.#source?.next();
        if (next === undefined || next.done === true) {
          this.#source = undefined;
          return;
        }
        this.#built.push(next.value);
      }
      yield this.#built[at] as EventBatch;
    }
  }
}

/**
 * The backlogs from change 0 of one version, one a format. A backlog is held by the readers going
 * through it, and only weakly here: once none is left it goes at the next collection, so a list
 * nobody catches up on costs nothing, and one that many catch up on at once is built once.
 */
export class SharedBacklogs {
  readonly #held = new Map<EventFormat, WeakRef<SharedBatches>>();

  /** The backlog in `format`, built by `build` for the first reader and shared with the next ones while it is held. */
  read(format: EventFormat, batchBytes: number, build: () => Iterator<EventBatch>): Iterable<EventBatch> {
    const held = this.#held.get(format)?.deref();
    if (held !== undefined && held.batchBytes === batchBytes) return held.read();
    const shared = new SharedBatches(build(), batchBytes);
    this.#held.set(format, new WeakRef(shared));
    return shared.read();
  }
}
