// `npm run typecheck` as a test: every TypeScript project of the repository checks strictly, each in
// a process of its own, beside the other tests rather than before them.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import { promisify } from "node:util";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = resolve(ROOT, "node_modules/.bin");
const run = promisify(execFile);

/** The commands of the typecheck script, which joins them with &&. */
const CHECKS = (JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")).scripts.typecheck as string)
  .split("&&")
  .map((command) => command.trim().split(/\s+/));

test.concurrent.each(CHECKS.map((words) => ({ line: words.join(" "), words })))(
  "$line reports no error",
  async ({ words: [command = "", ...args] }) => {
    const env = { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`, NO_COLOR: "1" };
    const outcome = await run(resolve(BIN, command), args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ failed: false, output: `${stdout}${stderr}` }),
      (error: { stdout?: string; stderr?: string; message: string }) => ({
        failed: true,
        output: `${error.stdout ?? ""}${error.stderr ?? error.message}`,
      }),
    );
    expect(outcome.failed, outcome.output).toBe(false);
  },
);
