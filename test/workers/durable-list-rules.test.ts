// The lists' own rules and a list's life, as test/unit runs them on the stores of one process and
// test/postgres on a database, on lists in Durable Objects: each list in its own object, the
// directory in one more, every object's storage deleted before each test.
import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe } from "vitest";
import { DurableLists } from "../../src/store/durable-object/durable-lists.ts";
import { describeListLifecycle } from "../unit/list-lifecycle-rules.ts";
import { describeListRules } from "../unit/list-rules.ts";
import { listObjects } from "./named-lists.ts";

function newLists(): DurableLists {
  if (env.TASK_LISTS === undefined) throw new Error("The durable environment must bind TASK_LISTS");
  return new DurableLists(listObjects(), env.TASK_LISTS);
}

describe("lists in Durable Objects", () => {
  beforeEach(() => reset());
  describeListRules(newLists);
  describeListLifecycle(newLists);
});
