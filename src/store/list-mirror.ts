import { EncodedList } from "./encoded-list.ts";
import { isKnown, type ListRead } from "./store.ts";

/**
 * Bytes of tasks one call for changes hands over, past which it stops after the task it is on.
 * Far under RPC's 32 MiB cap, and small enough that a reader catching up on a whole list holds
 * little more than the list itself.
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
  /** The next tasks after `afterId`, as JSON joined by commas; at most about {@link CHANGES_CHUNK_BYTES}. */
  readonly added: { readonly json: Uint8Array<ArrayBuffer>; readonly tasks: number; readonly lastId: number };
}

/** Asks where the list lives for the tasks after `afterId` of list `instance` (from the first task when it is another list). */
export type ChangesSince = (instance: string | undefined, afterId: number) => Promise<ListChanges>;

/**
 * A reader's copy of a list kept elsewhere (a Durable Object, a database). Each read asks only for
 * the tasks after the last id the copy holds, so what crosses follows the change, not the list's
 * length, and a reader whose copy is current gets a 304 for one small question.
 */
export class ListMirror {
  #instance: string | undefined;
  #list = new EncodedList();

  /** Brings the copy up to at least the list as it is when this read starts, then serves it as a GET does. */
  async read(known: readonly string[], changes: ChangesSince): Promise<ListRead> {
    await this.#catchUp(changes);
    const version = `${this.#instance}-${this.#list.count}`;
    return isKnown(version, known) ? { version } : { version, body: this.#list.body() };
  }

  /**
   * Reads that run at once share the copy: a chunk is added only onto the id it follows, and one
   * already added is skipped.
   */
  async #catchUp(changes: ChangesSince): Promise<void> {
    let target: number | undefined;
    for (;;) {
      const changed = await changes(this.#instance, this.#list.lastId);
      if (changed.instance !== this.#instance && changed.afterId === 0) {
        this.#instance = changed.instance;
        this.#list = new EncodedList();
      }
      target ??= changed.tasks;
      const { json, tasks, lastId } = changed.added;
      const follows = changed.instance === this.#instance && changed.afterId === this.#list.lastId;
      if (follows) this.#list.pushEncoded(json, tasks, lastId);
      // A count that runs ahead of the rows (a table changed by hand) must not keep the read waiting.
      if (this.#list.count >= target || (follows && tasks === 0)) return;
    }
  }
}
