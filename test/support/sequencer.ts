// The order test files start in: the longest first, so that the short ones fill the gaps beside
// them at the end.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Orders test files by how long they are known to take: the conformance suites' servers (which wait
 * out a WebSocket's ping time-out, half a minute of little CPU), the other server files, then the
 * in-process ones.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const weight = (spec: TestSpecification) =>
      (spec.project.name === "conformance" ? 2 : 0) + (spec.project.name === "unit" ? 0 : 1);
    // Array.prototype.sort is stable: within a weight, vitest's own order stays.
    return sorted.sort((a, b) => weight(b) - weight(a));
  }
}
