// The lists' own rules (list-rules.ts) on the stores that hold many lists in this process.
import { describe } from "vitest";
import { LIST_STORES, newLists } from "./list-helpers.ts";
import { describeListRules } from "./list-rules.ts";

describe.each(LIST_STORES)("lists in %s", (store) => {
  describeListRules(() => newLists(store));
});
