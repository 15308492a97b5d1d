// A reader's copy of a list kept elsewhere (a Durable Object, a database), and the one question
// every such store answers: which tasks follow the last one the copy holds.
import { EncodedList, type ListVersion } from "../list/encoded-list.ts";

/**
 * Bytes of tasks one answer to {@link ChangesSince} hands over, past which it stops after the task
 * it is on. Far under RPC's 32 MiB cap, and small enough that a reader catching up on a whole list
 * holds little more than the list itself.
 */
export const CHANGES_CHUNK_BYTES = 4 * 1024 * 1024;

/** What changed in the list since a reader's copy: the tasks after the last id it has. */
export interface ListChanges {
  /** The list's instance id; a reader whose copy is of another instance starts again from nothing. */
  readonly instance: string;
  /** Tasks in the whole list now. */
  readonly tasks: number;
  /** The id the added tasks follow: the reader's last id, or 0 when it must start again. */
  readonly afterId: number;
  /** The next tasks after `afterId`, at most about {@link CHANGES_CHUNK_BYTES}: their JSON joined by commas, and each one's length. */
  readonly added: { readonly json: Uint8Array<ArrayBuffer>; readonly lengths: readonly number[] };
}

/**
 * The seam of every store that keeps the list away from this process: the tasks after `afterId`
 * of list `instance`, or from the first task when `instance` is not the list's (or undefined).
 */
export type ChangesSince = (instance: string | undefined, afterId: number) => Promise<ListChanges>;

/**
 * A copy of a list kept elsewhere. Each read asks only for the tasks after the last id the copy
 * holds, so what crosses follows the change, not the list's length, and a current copy costs one
 * small question.
 */
export class ListMirror {
  #instance: string | undefined;
  #list = new EncodedList("");
  readonly #shared: boolean;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  /**
   * With `shared`, reads that arrive while the copy is being brought up to date wait for one more
   * question instead of asking one each, which keeps a burst of readers to two questions. Workers
   * must not share: a request may not wait on a promise another request resolves.
   */
  constructor(options: { readonly shared?: boolean } = {}) {
    this.#shared = options.shared === true;
  }

  /** The list as the copy holds it now, without asking. */
  get current(): ListVersion {
    return this.#list.read();
  }

  /** Brings the copy up to at least the list as it is when this read starts, and returns it. */
  async read(changes: ChangesSince): Promise<ListVersion> {
    await (this.#shared ? this.#refresh(changes) : this.#catchUp(changes));
    return this.#list.read();
  }

  #refresh(changes: ChangesSince): Promise<void> {
    if (this.#running === undefined) {
      this.#running = this.#catchUp(changes).finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    // The question under way may have been asked before this read began: wait for the next one.
    const again = () => {
      this.#next = undefined;
      return this.#refresh(changes);
    };
    this.#next ??= this.#running.then(again, again);
    return this.#next;
  }

  /**
   * Reads that run at once may share the copy: a chunk is added only onto the id it follows, and
   * one already added is skipped.
   */
  async #catchUp(changes: ChangesSince): Promise<void> {
    let target: number | undefined;
    for (;;) {
      const changed = await changes(this.#instance, this.#list.lastId);
      if (changed.instance !== this.#instance && changed.afterId === 0) {
        this.#instance = changed.instance;
        this.#list = new EncodedList(changed.instance);
      }
      target ??= changed.tasks;
      const { json, lengths } = changed.added;
      const follows = changed.instance === this.#instance && changed.afterId === this.#list.lastId;
      if (follows) this.#list.pushJoined(json, lengths);
      // A count that runs ahead of the rows (a table changed by hand) must not keep the read waiting.
      if (this.#list.usage.tasks >= target || (follows && lengths.length === 0)) return;
    }
  }
}
