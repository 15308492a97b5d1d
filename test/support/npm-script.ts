// An operator's npm script (`npm run backup -- ...`), run as npm runs it: its command from
// package.json, with the project's Node first on the PATH.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "node_modules", ".bin");

/** What a script did: its exit code and what it wrote. */
export interface ScriptRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the npm script `name` with `args` after its command, and `env` added to the environment. */
export function runNpmScript(
  name: string,
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ScriptRun> {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;
  const [command = "", ...words] = (scripts[name] ?? "").split(/\s+/).filter((word) => word !== "");
  return new Promise((done) => {
    execFile(
      join(BIN, command),
      [...words, ...args],
      { cwd: ROOT, env: { ...process.env, PATH: `${BIN}${delimiter}${process.env.PATH ?? ""}`, ...env } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}
