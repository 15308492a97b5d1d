import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, test } from "vitest";
import { DurableObjectStore, type ListObjectNamespace } from "../../src/store/durable-object/durable-store.ts";
import { histories, run } from "../support/change-history.ts";

/** The binding, with every store's one list object stood in for by the object named `name`. */
function objectNamed(name: string): ListObjectNamespace {
  const namespace = env.TASK_LIST;
  if (namespace === undefined) throw new Error("The durable environment must bind TASK_LIST");
  return { getByName: () => namespace.getByName(name) };
}

describe("a subscriber that applies events by id holds exactly the list, however it changed and wherever it resumes", () => {
  test("in the Durable Object, written through one isolate and read through another", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(histories(40), async (steps) => {
        const name = `changes-property-${runs++}`;
        await run(new DurableObjectStore(objectNamed(name)), steps, new DurableObjectStore(objectNamed(name)));
      }),
      // A failure's shrinking, calls to the object at every step, stops in time to be reported with what it found.
      { numRuns: 30, plugins: [fc.interruptAfterTimeLimit(40_000)] },
    );
  });
});
