// What a Worker knows of a list without asking its object: the copy as its last read left it, and
// what this isolate's own writes made of it since, so that a write's checks need no read first.
import type { IfMatch, ListMissing, RemoveResult, UpdateResult } from "../../engine/task-store.ts";
import type { ListVersion } from "../../list/list-version.ts";
import { isListMissing } from "../../list/writes.ts";

/** The most tasks followed between two reads: past it they are let go, and the next check reads. */
const MAX_FOLLOWED = 4_096;

/** A task as a write of this isolate left it: its version, or undefined when it is not there. */
interface Written {
  /** The count of writes when it was made: a read that started after it holds it. */
  readonly at: number;
  readonly version: string | undefined;
}

/**
 * The writes an isolate made to one list since its copy last caught up with them. A copy is brought
 * up to date only by reads, so without these a task this isolate just deleted would still be in
 * it. Another isolate's writes are not seen until the next read: a write they made refused is
 * refused by the object's own check, after the body, as it would be had it come just after the
 * check.
 */
export class OwnWrites {
  #count = 0;
  readonly #tasks = new Map<number, Written>();
  /**
   * When a write of this isolate left what it knows unsure (the list deleted, or more tasks written than
   * it follows), until a read after it.
   */
  #unsureAt: number | undefined;

  /** Where a read that starts now stands: it will hold every write made before. */
  get mark(): number {
    return this.#count;
  }

  /** A read that started at `mark` has brought the copy up to date: the writes before it are in the copy. */
  caughtUp(mark: number): void {
    for (const [id, written] of this.#tasks) if (written.at <= mark) this.#tasks.delete(id);
    if (this.#unsureAt !== undefined && this.#unsureAt <= mark) this.#unsureAt = undefined;
  }

  /** Task `id` as a write of this isolate left it: at `version`, or not there (undefined). */
  task(id: number, version: string | undefined): void {
    this.#count += 1;
    if (this.#tasks.size >= MAX_FOLLOWED && !this.#tasks.has(id)) {
      this.#tasks.clear();
      this.#unsureAt = this.#count;
    }
    this.#tasks.set(id, { at: this.#count, version });
  }

  /** What a write of task `id` answered: the task at its new version, not known, or the list gone. */
  wrote(id: number, result: UpdateResult | RemoveResult | ListMissing): void {
    if (isListMissing(result)) this.list();
    else if (result.outcome === "updated" || result.outcome === "unchanged") this.task(id, result.version);
    // A stale If-Match refused here means the copy was behind: the task is read again before the next write.
    else if (result.outcome !== "full") this.task(id, undefined);
  }

  /** The list itself may have been deleted by this isolate. */
  list(): void {
    this.#count += 1;
    this.#unsureAt = this.#count;
  }

  /**
   * Whether the list lives (`live`, as the copy's last read said) and, with `task`, holds that task
   * at a version `ifMatch` allows, by the copy and this isolate's writes since; false when unsure.
   */
  knows(copy: ListVersion, live: boolean, task?: number, ifMatch?: IfMatch): boolean {
    if (!live || this.#unsureAt !== undefined) return false;
    if (task === undefined) return true;
    const written = this.#tasks.get(task);
    let version = written?.version;
    if (written === undefined) {
      const read = copy.task(task);
      if (read.outcome === "found") version = read.version;
    }
    return version !== undefined && (ifMatch === undefined || ifMatch.includes(version));
  }
}
