import { describe, test } from "vitest";
import { type ConformanceOptions, type ConformanceTarget, createClient } from "./client.ts";
import { conformanceCases } from "./suite.ts";

/**
 * Registers the conformance suite as one vitest `describe` with a test per case. `target` is called
 * when the tests run, so a server started in `beforeAll` can supply it.
 */
export function describeConformance(
  title: string,
  target: () => ConformanceTarget,
  options: ConformanceOptions = {},
): void {
  describe(title, () => {
    for (const testCase of conformanceCases(options)) {
      test(testCase.name, () => testCase.run(createClient(target(), options)));
    }
  });
}
