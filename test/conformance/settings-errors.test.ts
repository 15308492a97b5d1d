// A setting a server cannot use, as a person starting it sees it: one line on standard error that
// names the variable and what it expected (never a password), exit status 1, and no stack.
import { describe, expect, test } from "vitest";
import { runUntilExit } from "../support/process-server.ts";

const CASES = [
  {
    name: "MAX_TASKS",
    env: { MAX_TASKS: "abc" },
    line: 'MAX_TASKS must be a whole number from 1 to 9007199254740991, got "abc"',
  },
  {
    name: "LOG_LEVEL",
    env: { LOG_LEVEL: "loud" },
    line: 'LOG_LEVEL must be one of info, debug, warn, error, off, got "loud"',
  },
  {
    name: "DATABASE_URL",
    env: { TASK_STORE: "postgres", DATABASE_URL: `postgres://tasks:50%off-s3cret@127.0.0.1:1/tasks` },
    line: "DATABASE_URL must be a URL such as postgres://user:password@host:5432/database with its user name and password percent-encoded (% as %25, @ as %40, : as %3A, / as %2F), but its password is not valid percent-encoding",
  },
];

for (const runtime of ["node", "bun", "deno"] as const) {
  describe(`a ${runtime} server started with a setting it cannot use`, () => {
    test.concurrent.each(CASES)(
      "$name stops it with exit status 1 and one line on standard error naming $name",
      async ({ env, line }) => {
        const ended = await runUntilExit(runtime, env);
        expect(ended).toEqual({ status: 1, stdout: "", stderr: `${line}\n` });
      },
    );
  });
}
