// DATABASE_URL as the PostgreSQL driver reads it: what it cannot read stops the server naming the
// variable and the part, never the value; what it can read reaches the driver as written.
import fc from "fast-check";
import postgres from "postgres";
import { describe, expect, test } from "vitest";
import { ConfigError } from "../../src/errors.ts";
import { parsePostgresServerConfig } from "../../src/store/postgres/settings.ts";

const PREFIX =
  "DATABASE_URL must be a URL such as postgres://user:password@host:5432/database with its user name and password percent-encoded (% as %25, @ as %40, : as %3A, / as %2F), but ";

const parse = (url: string) => parsePostgresServerConfig({ TASK_STORE: "postgres", DATABASE_URL: url });

describe("a DATABASE_URL the driver cannot read", () => {
  test.each([
    { url: "postgres://tasks:50%off-s3cret@db/tasks", problem: "its password is not valid percent-encoding" },
    { url: "postgres://tas%ks:s3cret@db/tasks", problem: "its user name is not valid percent-encoding" },
    { url: "postgres://tasks:s3cret@d%zzb/tasks", problem: "its host is not valid percent-encoding" },
    {
      url: "postgres://tasks:s3cret@db:99999/tasks",
      problem: "it cannot be read as a URL: check its host, and its port (a number up to 65535)",
    },
  ])("$url stops the server, saying $problem, and shows none of it", ({ url, problem }) => {
    let thrown: unknown;
    try {
      parse(url);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toEqual(new ConfigError(`${PREFIX}${problem}`));
    expect((thrown as Error).message).not.toContain("s3cret");
    // The driver itself would have stopped on it with an error that names no variable.
    expect(() => postgres(url)).toThrow();
  });
});

describe("a DATABASE_URL the driver can read", () => {
  test("any password, percent-encoded, is taken and reaches the driver as it was", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", minLength: 1 }), (password) => {
        const url = `postgres://tasks:${encodeURIComponent(password)}@db,replica:5433/tasks`;
        expect(parse(url).url).toBe(url);
        const sql = postgres(url);
        expect(sql.options.pass).toBe(password);
      }),
      { numRuns: 200 },
    );
  });
});
