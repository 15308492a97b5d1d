// A setting a server cannot use, as a person starting it sees it: exit status 1, nothing on standard
// output, and one line on standard error that names the variable (never a password), no stack. One
// real process per runtime; each kind of refusal is test/unit/start-refusals.test.ts's, in process.
import { expect, test } from "vitest";
import { runUntilExit } from "../support/process-server.ts";

// The refusal that goes furthest into the start: past the app's settings to the store's, loaded
// only then, with a password to keep out of the line.
const ENV = { TASK_STORE: "postgres", DATABASE_URL: "postgres://tasks:50%off-s3cret@127.0.0.1:1/tasks" };
const LINE =
  "DATABASE_URL must be a URL such as postgres://user:password@host:5432/database with its user name and password percent-encoded (% as %25, @ as %40, : as %3A, / as %2F), but its password is not valid percent-encoding";

test.concurrent.each(["node", "bun", "deno"] as const)(
  "a %s server started with a DATABASE_URL it cannot read exits with status 1 and only that one line on standard error",
  async (runtime) => {
    expect(await runUntilExit(runtime, ENV)).toEqual({ status: 1, stdout: "", stderr: `${LINE}\n` });
  },
);
