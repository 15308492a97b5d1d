// Vitest's global setup: a folder for the run that the processes started after it inherit. It holds
// one V8 compile cache for every Node process (its workers, the servers they start, wrangler dev),
// so the code each loads is compiled once per run (half a Node server's start-up CPU), and the
// Worker bundled once for every workerd server of the run.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The variable that names the run's folder to the test processes. */
export const RUN_DIR_VARIABLE = "TASK_LIST_TEST_RUN_DIR";

/** Makes the run's folder and removes it after the run. */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "task-list-test-run-"));
  mkdirSync(join(dir, "compile-cache"));
  process.env.NODE_COMPILE_CACHE = join(dir, "compile-cache");
  process.env[RUN_DIR_VARIABLE] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
