// npm test: the linter, then the type check beside the test suites. The suites spend much of their
// time waiting on the servers they start, and the type check is one process on one core, so running
// both at once ends sooner than one after the other. Arguments go to vitest.
import { spawn } from "node:child_process";

/** How a command ended, and what it printed when it ran quietly. */
interface Ended {
  readonly code: number;
  readonly output: Buffer;
}

/** Runs `command`, its output kept rather than shown when `quiet`. */
function run(command: string, args: readonly string[], quiet = false): Promise<Ended> {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: quiet ? ["ignore", "pipe", "pipe"] : "inherit" });
    const output: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
    child.on("error", (error) => {
      done({ code: 1, output: Buffer.from(`${command} could not start: ${error.message}\n`) });
    });
    child.on("close", (code, signal) => {
      done({ code: code ?? (signal === null ? 1 : 128), output: Buffer.concat(output) });
    });
  });
}

const lint = await run("npm", ["run", "--silent", "lint"]);
if (lint.code !== 0) process.exit(lint.code);
const [typecheck, tests] = await Promise.all([
  run("npm", ["run", "--silent", "typecheck"], true),
  run("vitest", ["run", ...process.argv.slice(2)]),
]);
if (typecheck.code !== 0) {
  process.stderr.write(typecheck.output);
  console.error("npm run typecheck failed: the type errors are above");
  process.exit(typecheck.code);
}
process.exit(tests.code);
