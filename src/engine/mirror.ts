// A reader's copy of a list kept elsewhere (a Durable Object, a database), and the one question
// every such store serves: what changed since the last change the copy holds.
import { EncodedList } from "../list/encoded-list.ts";
import type { ListVersion } from "../list/list-version.ts";
import type { CopiedChange } from "../list/stored-list.ts";

/**
 * Bytes of tasks one reply to {@link ChangesSince} hands over, past which it stops after the task
 * it is on. Far under RPC's 32 MiB cap, and small enough that a reader catching up on a whole list
 * holds little more than the list itself.
 */
export const CHANGES_CHUNK_BYTES = 4 * 1024 * 1024;

const encoder = new TextEncoder();

/** One change as a store hands it to a copy: the task as the change left it, or its deletion. */
export interface ChangedRow {
  readonly id: number;
  readonly change: number;
  /** The change that created the task; 0 for a deletion. */
  readonly created: number;
  /** The task's JSON text after the change; absent for a deletion. */
  readonly json?: string;
}

/**
 * What changed in the list since a reader's copy, in change order: each task's last change and each
 * deletion, or, when the reply is a `journal`, every change.
 */
export interface ListChanges {
  /** The list's instance id; a reader whose copy is of another instance starts again from nothing. */
  readonly instance: string;
  /** The number of the list's last change. */
  readonly change: number;
  readonly highestId: number;
  /** The change number of the last deletion the list forgot, or 0. */
  readonly forgotten: number;
  /**
   * The change the reply follows: the reader's, or 0 when it must start again from nothing. After a
   * reader's change 0, a journal follows it; any other reply starts from nothing.
   */
  readonly after: number;
  /** The last change the reply covers: the list's, or less when it stopped at about {@link CHANGES_CHUNK_BYTES}. */
  readonly through: number;
  /**
   * Whether the reply holds every change after `after` up to `through`, each with its task as that
   * change left it: a task then comes once per creation or edit, and a change numbered as its
   * task's creation is that creation. Otherwise only each task's last change.
   */
  readonly journal: boolean;
  /** The changes after `after`, up to `through`, in change order, deletions included: of each task its last change, or in a journal every change. */
  readonly rows: readonly ChangedRow[];
}

/**
 * The seam of every store that keeps the list away from this process: what changed after change
 * `after` of list `instance`, or everything from nothing when `instance` is not the list's (or
 * undefined), or when `after` is older than the deletions the list remembers or newer than the list.
 */
export type ChangesSince = (instance: string | undefined, after: number) => Promise<ListChanges>;

/**
 * A copy of a list kept elsewhere. Each read asks only for what changed after the last change the
 * copy holds, so what crosses follows the change, not the list's length, and a current copy costs
 * one small question.
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

  /** The list the copy holds now, for a write to be decided against. */
  get held(): EncodedList {
    return this.#list;
  }

  /**
   * Makes on the copy a change this process wrote, decided against `list` at its change `at`, when
   * the copy still holds that list at that change; else a catch-up has brought it, or will.
   */
  wrote(list: EncodedList, at: number, apply: () => void): void {
    if (this.#list === list && list.change === at) apply();
  }

  /**
   * Brings the copy up to at least the list as it is when this read starts, and returns it. With
   * `alone`, `changes` answers for this read only (a write's, on its own client, or with what it
   * already learnt): no later read waits for its answer, which may be older than that read.
   */
  async read(changes: ChangesSince, options: { readonly alone?: boolean } = {}): Promise<ListVersion> {
    await (this.#shared ? this.#refresh(changes, options.alone === true) : this.#catchUp(changes));
    return this.#list.read();
  }

  #refresh(changes: ChangesSince, alone: boolean): Promise<void> {
    const running = this.#running;
    if (running === undefined) {
      const asked = this.#catchUp(changes).finally(() => {
        this.#running = undefined;
      });
      this.#running = asked;
      return asked;
    }
    // The question under way may have been asked before this read began: wait for the next one.
    const again = () => {
      if (!alone) this.#next = undefined;
      return this.#refresh(changes, alone);
    };
    if (alone) return running.then(again, again);
    this.#next ??= running.then(again, again);
    return this.#next;
  }

  /**
   * Asks until the copy has every change up to the list's last, then applies them at once: every
   * change, when each reply was a journal, else each task's last. Reads that run at once may share
   * the copy: a change it already holds is skipped.
   */
  async #catchUp(changes: ChangesSince, fromNothing = false): Promise<void> {
    const base = this.#list;
    let instance = fromNothing ? undefined : this.#instance;
    let after = instance === undefined ? 0 : base.change;
    let reply: ListChanges;
    let fresh = instance === undefined;
    const received: CopiedChange[] = [];
    let every = true;
    do {
      reply = await changes(instance, after);
      // A reply after change 0 that is not a journal is the whole list, as from nothing: no deletion
      // of it is told. A journal is every change since the list was empty, which the subscribers
      // that read it empty must each get.
      if (reply.instance !== instance || reply.after !== after || (reply.after === 0 && !reply.journal)) {
        fresh = true;
        received.length = 0;
      }
      instance = reply.instance;
      every &&= reply.journal;
      for (const row of reply.rows) received.push(copied(row));
      after = reply.through;
    } while (reply.through < reply.change);
    if (!fresh) {
      // Another read replaced the copy meanwhile: what this one learnt is in the new copy, or older.
      if (this.#list !== base) return;
      if (this.#list.copy(every ? received : lastOfEach(received), reply.highestId, every)) return;
      return this.#catchUp(changes, true);
    }
    const ordered = lastOfEach(received);
    this.#instance = instance;
    this.#list = new EncodedList(instance, {
      tasks: ordered
        .filter((change) => change.json !== undefined)
        .sort((a, b) => a.id - b.id)
        .map(({ id, json, created, change }) => ({ id, json: json ?? new Uint8Array(), created, changed: change })),
      deletions: ordered.filter((change) => change.json === undefined),
      change: reply.change,
      highestId: reply.highestId,
      forgotten: reply.forgotten,
    });
  }
}

/** Each task's last change only, in change order: a task changed again in a later reply, or later in a journal, keeps the later. */
function lastOfEach(changes: readonly CopiedChange[]): CopiedChange[] {
  const last = new Map<number, CopiedChange>();
  for (const change of changes) {
    last.delete(change.id);
    last.set(change.id, change);
  }
  return [...last.values()].sort((a, b) => a.change - b.change);
}

/** A row as the list copies it: its JSON as UTF-8. */
function copied({ id, change, created, json }: ChangedRow): CopiedChange {
  return json === undefined
    ? { id, change, created }
    : { id, change, created, json: encoder.encode(json) as Uint8Array<ArrayBuffer> };
}
