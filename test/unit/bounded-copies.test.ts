import { describe, expect, test } from "vitest";
import { BoundedCopies, COPY_OVERHEAD_BYTES, type HeldCopy } from "../../src/engine/bounded-copies.ts";

/** A copy of a list of `size` bytes once read, followed by readers while `busy`. */
class FakeCopy implements HeldCopy {
  bytes = 0;
  busy = false;
  drops = 0;
  readonly size: number;
  constructor(size: number) {
    this.size = size;
  }
  read(): void {
    this.bytes = this.size;
  }
  drop(): void {
    this.bytes = 0;
    this.drops++;
  }
}

/** Reads list `name` through `copies`, as a request does: its copy, then its size counted. */
function read(copies: BoundedCopies<FakeCopy>, name: string, size = 1000): FakeCopy {
  const copy = copies.use(name, () => new FakeCopy(size));
  copy.read();
  copies.sized(name, copy);
  return copy;
}

describe("the copies of lists a process keeps", () => {
  const bound = 3 * (1000 + COPY_OVERHEAD_BYTES);

  test("reading more lists than the bound holds, again and again, keeps them under it: the least recently used goes first", () => {
    const copies = new BoundedCopies<FakeCopy>(bound);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 10; i++) {
        read(copies, `list-${i}`);
        expect(copies.bytes).toBeLessThanOrEqual(bound);
      }
    }
    expect([...copies.values()].map((copy) => copy.bytes)).toEqual([1000, 1000, 1000]);
    expect(copies.peek("list-9")).toBeDefined();
    expect(copies.peek("list-6")).toBeUndefined();
  });

  test("a copy used again is kept over one used less recently", () => {
    const copies = new BoundedCopies<FakeCopy>(bound);
    const first = read(copies, "first");
    read(copies, "second");
    read(copies, "third");
    read(copies, "first");
    read(copies, "fourth");
    expect(copies.peek("first")).toBe(first);
    expect(copies.peek("second")).toBeUndefined();
  });

  test("a copy past the bound alone is kept while it is the last read, and dropped by the next", () => {
    const copies = new BoundedCopies<FakeCopy>(bound);
    const big = read(copies, "big", 10 * bound);
    expect(copies.peek("big")).toBe(big);
    read(copies, "small");
    expect(big.drops).toBe(1);
    expect(copies.peek("big")).toBeUndefined();
    expect(copies.bytes).toBeLessThanOrEqual(bound);
  });

  test("a copy its readers wait on stays, its bytes let go, and is counted again once read", () => {
    const copies = new BoundedCopies<FakeCopy>(bound);
    const followed = read(copies, "followed");
    followed.busy = true;
    for (let i = 0; i < 3; i++) read(copies, `other-${i}`);
    expect(copies.peek("followed")).toBe(followed);
    expect(followed.bytes).toBe(0);
    expect(copies.bytes).toBeLessThanOrEqual(bound);
    read(copies, "followed");
    expect(followed.bytes).toBe(1000);
    expect(copies.bytes).toBeLessThanOrEqual(bound);
  });

  test("a copy read after it was let go is not counted", () => {
    const copies = new BoundedCopies<FakeCopy>(bound);
    const old = read(copies, "old");
    for (let i = 0; i < 3; i++) read(copies, `other-${i}`);
    old.read();
    copies.sized("old", old);
    expect(copies.bytes).toBeLessThanOrEqual(bound);
  });
});
