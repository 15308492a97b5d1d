// A setting a Node, Bun or Deno server cannot use, as its start handles it: each kind once, in
// process, up to the exit. test/conformance/settings-errors.test.ts starts a real process of each
// runtime for one of them: exit status 1, nothing on standard output, this one line on standard error.
import { expect, test, vi } from "vitest";
import { startServerApp } from "../../src/runtimes/server.ts";
import { openNodeSqlite } from "../../src/store/sqlite/node-driver.ts";

const TOKENS_RULE =
  "must be a comma-separated list of tokens of at least 16 characters each before any = padding, made of letters, digits and -._~+/ with = only at the end, but";

test.each([
  { env: { MAX_TASKS: "abc" }, line: 'MAX_TASKS must be a whole number from 1 to 9007199254740991, got "abc"' },
  { env: { LOG_LEVEL: "loud" }, line: 'LOG_LEVEL must be one of info, debug, warn, error, off, got "loud"' },
  {
    env: { MAX_LIST_BYTES: "1073741825" },
    line: 'MAX_LIST_BYTES must be a whole number from 2 to 1073741824 on Node, Bun and Deno, got "1073741825"',
  },
  {
    env: { WRITE_TOKENS: "short-secret-1" },
    line: `WRITE_TOKENS ${TOKENS_RULE} token 1 of 1 has 14 characters before any = padding`,
    secrets: ["short-secret-1"],
  },
  {
    env: { READ_TOKENS: "a-good-read-token-0123,not a token but a sentence" },
    line: `READ_TOKENS ${TOKENS_RULE} token 2 of 2 has a character outside that set`,
    secrets: ["a-good-read-token-0123", "not a token but a sentence"],
  },
  {
    env: { TASK_STORE: "postgres", DATABASE_URL: "postgres://tasks:50%off-s3cret@127.0.0.1:1/tasks" },
    line: "DATABASE_URL must be a URL such as postgres://user:password@host:5432/database with its user name and password percent-encoded (% as %25, @ as %40, : as %3A, / as %2F), but its password is not valid percent-encoding",
    secrets: ["s3cret"],
  },
])(
  "a server started with $env exits with status 1 and one line that shows no secret",
  async ({ env, line, secrets = [] }) => {
    const exited = new Error("process.exit");
    const exit = vi.spyOn(process, "exit").mockImplementation(() => {
      throw exited;
    });
    const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
    await expect(startServerApp(env, openNodeSqlite, { log: () => {}, error: () => {} })).rejects.toBe(exited);
    expect(exit.mock.calls).toEqual([[1]]);
    expect(stderr.mock.calls).toEqual([[line]]);
    for (const secret of secrets) expect(stderr.mock.calls.flat().join("")).not.toContain(secret);
  },
);
