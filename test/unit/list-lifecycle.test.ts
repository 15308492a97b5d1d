// A list's life (list-lifecycle-rules.ts) on the stores that hold many lists in this process.
import { describe } from "vitest";
import { LIST_STORES, newLists } from "./list-helpers.ts";
import { describeListLifecycle } from "./list-lifecycle-rules.ts";

describe.each(LIST_STORES)("lists in %s", (store) => {
  describeListLifecycle(() => newLists(store));
});
