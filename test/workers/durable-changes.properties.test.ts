import fc from "fast-check";
import { describe, test } from "vitest";
import { DurableObjectStore } from "../../src/store/durable-object/durable-store.ts";
import { histories, run } from "../support/change-history.ts";
import { listObjects, madeList } from "./named-lists.ts";

describe("a subscriber that applies events by id holds exactly the list, however it changed and wherever it resumes", () => {
  test("in the Durable Object, written through one isolate and read through another", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(histories(40), async (steps) => {
        const name = `changes-property-${runs++}`;
        await run(await madeList(name), steps, new DurableObjectStore(listObjects(), name));
      }),
      // A failure's shrinking, calls to the object at every step, stops in time to be reported with what it found.
      { numRuns: 30, plugins: [fc.interruptAfterTimeLimit(40_000)] },
    );
  });
});
