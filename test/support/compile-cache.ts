// Vitest's global setup: one V8 compile cache for every Node process of the run (its workers, the
// servers they start, wrangler dev), so the TypeScript and JavaScript each of them loads is compiled
// once per run rather than once per process: half a Node server's start-up CPU.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Makes the run's cache directory, which the processes started after it inherit, and removes it after the run. */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "task-list-compile-cache-"));
  process.env.NODE_COMPILE_CACHE = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
