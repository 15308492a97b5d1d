import { describe, test } from "vitest";
import { type ConformanceOptions, type ConformanceTarget, createClient } from "./client.ts";
import { type ConformanceCase, conformanceCases } from "./suite.ts";

/**
 * Registers the conformance suite (or the given part of it) as one vitest `describe` with a test
 * per case. `target` is called when the tests run, so a server started in `beforeAll` can supply it.
 */
export function describeConformance(
  title: string,
  target: () => ConformanceTarget,
  options: ConformanceOptions = {},
  cases: readonly ConformanceCase[] = conformanceCases(options),
): void {
  describe(title, () => {
    for (const testCase of cases) {
      if (testCase.skip !== undefined) test.skip(`${testCase.name} (${testCase.skip})`, () => {});
      else test(testCase.name, () => testCase.run(createClient(target(), options)));
    }
  });
}
