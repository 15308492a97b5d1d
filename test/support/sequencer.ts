// The order test files start in: the ones that start servers through wrangler dev take longest, so
// they begin first and the short files fill the gaps beside them.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Orders test files by how long they are known to take: wrangler dev files, other server files, then the rest. */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const weight = (spec: TestSpecification) =>
      (spec.moduleId.includes("wrangler") ? 2 : 0) +
      (["unit", "workers", "workers-durable"].includes(spec.project.name) ? 0 : 1);
    // Array.prototype.sort is stable: within a weight, vitest's own order stays.
    return sorted.sort((a, b) => weight(b) - weight(a));
  }
}
