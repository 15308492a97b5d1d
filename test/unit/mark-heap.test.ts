import fc from "fast-check";
import { expect, test } from "vitest";
import { type MarkEntry, MarkHeap } from "../../src/engine/mark-heap.ts";

test("wakes exactly the waiters whose mark a level passes, lowest first, and never one that left", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.boolean()), { maxLength: 200 }),
      fc.array(fc.integer({ min: 0, max: 1100 }), { maxLength: 10 }),
      (waiters, levels) => {
        const heap = new MarkHeap();
        const woken: number[] = [];
        const entries: [MarkEntry, boolean][] = waiters.map(([mark, leaves], i) => [
          heap.add(mark, () => woken.push(i)),
          leaves,
        ]);
        for (const [entry, leaves] of entries) if (leaves) heap.remove(entry);
        const waiting = new Set(waiters.flatMap(([, leaves], i) => (leaves ? [] : [i])));
        for (const level of [...levels].sort((a, b) => a - b)) {
          woken.length = 0;
          for (const wake of heap.takeBelow(level)) wake();
          const expected = [...waiting].filter((i) => (waiters[i]?.[0] ?? 0) < level);
          expect([...woken].sort((a, b) => a - b)).toEqual(expected);
          const marks = woken.map((i) => waiters[i]?.[0] ?? 0);
          expect(marks).toEqual([...marks].sort((a, b) => a - b));
          for (const i of expected) waiting.delete(i);
          expect(heap.size).toBe(waiting.size);
        }
      },
    ),
  );
});
