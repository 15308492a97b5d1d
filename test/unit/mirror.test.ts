// A copy of a list kept elsewhere, brought up to date through changesReply as a Worker's copy of its
// Durable Object's list is: a list followed since it was empty keeps every change for subscribers.
import { describe, expect, test } from "vitest";
import { changesReply } from "../../src/engine/changes-reply.ts";
import { CHANGES_CHUNK_BYTES, type ChangesSince, ListMirror } from "../../src/engine/mirror.ts";
import { EncodedList } from "../../src/list/encoded-list.ts";
import { encodeTask } from "../../src/list/stored-list.ts";

const encoder = new TextEncoder();

/** A list held elsewhere, empty at change 0, and the question a copy asks of it. */
function heldElsewhere(): { list: EncodedList; changes: ChangesSince } {
  const list = new EncodedList("elsewhere", []);
  const changes: ChangesSince = async (instance, after) =>
    changesReply(list.read(), list.instance, instance, after, CHANGES_CHUNK_BYTES);
  return { list, changes };
}

/** The changes of `list` after `change` as a subscriber gets them: change number, event, task id. */
function changesOf(
  list: { changesAfter(change: number): readonly { change: number; event: string; id: number }[] | undefined },
  change: number,
) {
  return list.changesAfter(change)?.map(({ change, event, id }) => [change, event, id]);
}

describe("a copy of a list kept elsewhere", () => {
  test("read while the list was empty, then after several changes at once, holds each of them for a subscriber that read it empty", async () => {
    const { list, changes } = heldElsewhere();
    const mirror = new ListMirror();
    const start = await mirror.read(changes);
    expect(start.change).toBe(0);
    list.push(encodeTask({ id: 1, title: "First", completed: false }));
    list.replace(1, encoder.encode('{"id":1,"title":"Renamed","completed":false}'));
    list.push(encodeTask({ id: 2, title: "Second", completed: false }));
    list.remove(1);
    const now = await mirror.read(changes);
    expect(changesOf(now, start.change)).toEqual([
      [1, "task", 1],
      [2, "update", 1],
      [3, "task", 2],
      [4, "delete", 1],
    ]);
    expect(
      now
        .body()
        .parts.map((part) => new TextDecoder().decode(part))
        .join(""),
    ).toBe('[{"id":2,"title":"Second","completed":false}]');
  });

  test("made after the list changed holds no change from before it, and gives each task's last change instead", async () => {
    const { list, changes } = heldElsewhere();
    list.push(encodeTask({ id: 1, title: "First", completed: false }));
    list.replace(1, encoder.encode('{"id":1,"title":"Renamed","completed":false}'));
    const copy = await new ListMirror().read(changes);
    expect(copy.change).toBe(2);
    expect(changesOf(copy, 0)).toBeUndefined();
    expect([...copy.eventsAfter(0).events].map(({ change, event, id }) => [change, event, id])).toEqual([
      [2, "task", 1],
    ]);
  });
});

describe("a copy that readers share", () => {
  test("a read that begins after a change gets it, though a read before it brought an answer of its own from before the change", async () => {
    const { list, changes } = heldElsewhere();
    const mirror = new ListMirror({ shared: true });
    await mirror.read(changes);
    list.push(encodeTask({ id: 1, title: "Before", completed: false }));
    // What a write learnt of the list before the change below: its own answer, to no one else.
    const before = list.read();
    const ownAnswer: ChangesSince = async (instance, after) =>
      changesReply(before, list.instance, instance, after, CHANGES_CHUNK_BYTES);
    // A read under way holds the question, so the two below wait for the next one.
    let release = () => {};
    const held = new Promise<void>((done) => {
      release = done;
    });
    const first = mirror.read(async (instance, after) => {
      await held;
      return changes(instance, after);
    });
    const write = mirror.read(ownAnswer, { alone: true });
    list.push(encodeTask({ id: 2, title: "After", completed: false }));
    const after = mirror.read(changes);
    release();
    await Promise.all([first, write]);
    expect((await after).change).toBe(2);
  });
});
