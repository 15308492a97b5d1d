// The order test files start in: the longest first, so that the short ones fill the gaps beside
// them at the end, and in-process files beside the files that wait on their servers.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Files that wait on servers started for each in-process file, which keeps a core busy by itself. */
const SERVER_FILES_PER_IN_PROCESS = 2;

/**
 * Orders test files by how long they are known to take: the conformance suites' servers (which wait
 * out a WebSocket's ping time-out, half a minute of little CPU), the other server files, and
 * between them the in-process ones (vitest's own order: the slowest it remembers, else the largest),
 * so that the time server files spend waiting is spent on in-process work.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const inProcess = sorted.filter((spec) => spec.project.name === "unit");
    // Array.prototype.sort is stable: within a weight, vitest's own order stays.
    const servers = sorted
      .filter((spec) => spec.project.name !== "unit")
      .sort((a, b) => Number(b.project.name === "conformance") - Number(a.project.name === "conformance"));
    const ordered: TestSpecification[] = [];
    while (servers.length > 0 || inProcess.length > 0) {
      ordered.push(...servers.splice(0, SERVER_FILES_PER_IN_PROCESS), ...inProcess.splice(0, 1));
    }
    return ordered;
  }
}
