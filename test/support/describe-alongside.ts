// Suites of one file that need not wait for each other: each keeps its own tests in order, beside
// the others, so that a file whose servers mostly wait finishes in the time of its longest suite.
import { describe } from "vitest";

/** Registers `body` as a suite whose tests run in order, while the file's other such suites run too. */
export function describeAlongside(title: string, body: () => void): void {
  describe(title, { concurrent: true }, () => {
    describe("", { concurrent: false }, body);
  });
}
