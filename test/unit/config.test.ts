import { describe, expect, test } from "vitest";
import {
  type EnvRecord,
  parseAppConfig,
  parseListenConfig,
  SERVER_PLATFORM,
  WORKERS_PLATFORM,
} from "../../src/config.ts";
import { ConfigError } from "../../src/errors.ts";

/** Checks that reading `env` stops with a ConfigError whose message starts with the variable's name. */
function expectRefusal(parse: (env: EnvRecord) => unknown, env: EnvRecord, name: string): void {
  let thrown: unknown;
  try {
    parse(env);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ConfigError);
  const message = (thrown as ConfigError).message;
  expect(message.startsWith(`${name} must be `)).toBe(true);
  expect(message).not.toMatch(/\.$/);
}

describe("parseAppConfig", () => {
  test("an empty environment gives the defaults", () => {
    expect(parseAppConfig({})).toEqual({
      basePath: "",
      maxBodyBytes: 1024 * 1024,
      maxTasks: 100_000,
      maxListBytes: 16 * 1024 * 1024,
      corsOrigins: undefined,
      logLevel: "info",
      readTokens: [],
      writeTokens: [],
      maxSubscribers: 10_000,
      maxIdempotencyKeys: 10_000,
      maxLists: 1_000,
      timeRules: { scale: 1, pingIntervalMs: 20_000, keepAliveMs: 15_000, bodySilenceMs: 10_000 },
    });
  });

  test("an empty string counts as unset for every variable", () => {
    const empty = {
      BASE_PATH: "",
      MAX_BODY_BYTES: "",
      MAX_TASKS: "",
      MAX_LIST_BYTES: "",
      CORS_ORIGINS: "",
      LOG_LEVEL: "",
      READ_TOKENS: "",
      WRITE_TOKENS: "",
    };
    expect(parseAppConfig(empty)).toEqual(parseAppConfig({}));
  });

  test("variables it does not know are ignored", () => {
    expect(parseAppConfig({ PORT: "nonsense", OTHER: 5 })).toEqual(parseAppConfig({}));
  });

  test.each([
    { value: "/", basePath: "" },
    { value: "/api", basePath: "/api" },
    { value: "/api/v1", basePath: "/api/v1" },
    { value: "/tasks-service_2.0~x", basePath: "/tasks-service_2.0~x" },
    { value: "/v1.2/.well-known", basePath: "/v1.2/.well-known" },
  ])("BASE_PATH $value is read as $basePath", ({ value, basePath }) => {
    expect(parseAppConfig({ BASE_PATH: value }).basePath).toBe(basePath);
  });

  test.each([
    "api",
    "/api/",
    "//api",
    "/api//v1",
    "/a b",
    "/api?x=1",
    "/api#top",
    "/my%20api",
    "/:tenant",
    "/api/*",
    "/api{v[0-9]}",
    "/..",
    "/api/./v1",
    " /api",
    "\\api",
    "https://x.example/api",
  ])("BASE_PATH %j is refused naming BASE_PATH", (value) => {
    expectRefusal(parseAppConfig, { BASE_PATH: value }, "BASE_PATH");
  });

  describe.each([
    { name: "MAX_BODY_BYTES", key: "maxBodyBytes" },
    { name: "MAX_TASKS", key: "maxTasks" },
  ] as const)("$name", ({ name, key }) => {
    test.each(["1", "64", "1048576", "007", "9007199254740991"])("%s is read as a whole number", (value) => {
      expect(parseAppConfig({ [name]: value })[key]).toBe(Number(value));
    });

    test.each(["0", "-1", "1.5", "1e6", "0x10", "ten", " 10", "10 ", "+10", "9007199254740992", "Infinity", "NaN"])(
      "%j is refused naming the variable",
      (value) => {
        expectRefusal(parseAppConfig, { [name]: value }, name);
      },
    );
  });

  describe("MAX_LISTS", () => {
    test.each(["1", "1000", "1000000"])("%s is read as a whole number", (value) => {
      expect(parseAppConfig({ MAX_LISTS: value }).maxLists).toBe(Number(value));
    });

    test.each(["0", "-1", "1.5", "1000001", "many", " 10"])("%j is refused naming MAX_LISTS and its range", (value) => {
      expectRefusal(parseAppConfig, { MAX_LISTS: value }, "MAX_LISTS");
      expect(() => parseAppConfig({ MAX_LISTS: value })).toThrow("from 1 to 1000000");
    });
  });

  describe("MAX_BODY_BYTES", () => {
    test("on Workers takes up to 1,900,000 bytes, so a task's row fits a Durable Object's 2 MB, and refuses more", () => {
      expect(parseAppConfig({ MAX_BODY_BYTES: "1900000" }, WORKERS_PLATFORM).maxBodyBytes).toBe(1_900_000);
      expect(() => parseAppConfig({ MAX_BODY_BYTES: "1900001" }, WORKERS_PLATFORM)).toThrow(
        new ConfigError('MAX_BODY_BYTES must be a whole number from 1 to 1900000 on Cloudflare Workers, got "1900001"'),
      );
    });

    test("on Node, Bun and Deno takes a body larger than Workers' limit, and the default fits every platform", () => {
      expect(parseAppConfig({ MAX_BODY_BYTES: "33554432" }, SERVER_PLATFORM).maxBodyBytes).toBe(33_554_432);
      for (const platform of [SERVER_PLATFORM, WORKERS_PLATFORM]) {
        expect(parseAppConfig({}, platform).maxBodyBytes).toBeLessThanOrEqual(platform.maxBodyBytes);
      }
    });
  });

  describe("MAX_LIST_BYTES", () => {
    test.each(["2", "1048576", "16777216", "1073741824"])(
      "%s is read as a whole number on Node, Bun and Deno",
      (value) => {
        expect(parseAppConfig({ MAX_LIST_BYTES: value }).maxListBytes).toBe(Number(value));
      },
    );

    test.each(["0", "1", "-1", "1.5", "16MiB", "1073741825"])("%j is refused on Node, Bun and Deno", (value) => {
      expectRefusal(parseAppConfig, { MAX_LIST_BYTES: value }, "MAX_LIST_BYTES");
    });

    test("on Node, Bun and Deno takes up to 1 GiB, and refuses more, naming the platforms and the maximum", () => {
      expect(parseAppConfig({ MAX_LIST_BYTES: "1073741824" }, SERVER_PLATFORM).maxListBytes).toBe(1_073_741_824);
      expect(() => parseAppConfig({ MAX_LIST_BYTES: "1073741825" }, SERVER_PLATFORM)).toThrow(
        new ConfigError(
          'MAX_LIST_BYTES must be a whole number from 2 to 1073741824 on Node, Bun and Deno, got "1073741825"',
        ),
      );
    });

    test("on Workers takes up to 24 MiB, and refuses more, naming the platform and its maximum", () => {
      expect(parseAppConfig({ MAX_LIST_BYTES: "25165824" }, WORKERS_PLATFORM).maxListBytes).toBe(25_165_824);
      expect(() => parseAppConfig({ MAX_LIST_BYTES: "25165825" }, WORKERS_PLATFORM)).toThrow(
        new ConfigError(
          'MAX_LIST_BYTES must be a whole number from 2 to 25165824 on Cloudflare Workers, got "25165825"',
        ),
      );
    });

    test("the default fits every platform", () => {
      for (const platform of [SERVER_PLATFORM, WORKERS_PLATFORM]) {
        expect(parseAppConfig({}, platform).maxListBytes).toBeLessThanOrEqual(platform.maxListBytes);
      }
    });
  });

  describe.each([
    { name: "READ_TOKENS", key: "readTokens" },
    { name: "WRITE_TOKENS", key: "writeTokens" },
  ] as const)("$name", ({ name, key }) => {
    const token = "abcdefghijklmnop";
    test.each([
      { value: token, tokens: [token] },
      { value: ` ${token} , Zz0-._~+/Zz0-._~+/== `, tokens: [token, "Zz0-._~+/Zz0-._~+/=="] },
      { value: "A".repeat(200), tokens: ["A".repeat(200)] },
    ])("$value is read as $tokens", ({ value, tokens }) => {
      expect(parseAppConfig({ [name]: value })[key]).toEqual(tokens);
    });

    test.each([
      { value: "short-token", problem: "token 1 of 1 has 11 characters before any = padding" },
      { value: `${token},abc`, problem: "token 2 of 2 has 3 characters before any = padding" },
      // Padding says nothing of a token's strength: one meaningful character is one.
      { value: "a===============", problem: "token 1 of 1 has 1 characters before any = padding" },
      { value: `${token},,${token}`, problem: "token 2 of 3 is empty" },
      { value: `${token},`, problem: "token 2 of 2 is empty" },
      { value: "secret token with spaces", problem: "token 1 of 1 has a character outside that set" },
      { value: "abcdefgh=ijklmnopq", problem: "token 1 of 1 has a character outside that set" },
      { value: "pässwörd-pässwörd", problem: "token 1 of 1 has a character outside that set" },
      { value: "Bearer:abcdefghijklmnop", problem: "token 1 of 1 has a character outside that set" },
    ])("$value is refused, saying which token is wrong without showing it", ({ value, problem }) => {
      expectRefusal(parseAppConfig, { [name]: value }, name);
      let message = "";
      try {
        parseAppConfig({ [name]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message.endsWith(problem)).toBe(true);
      for (const part of value.split(",")) if (part.trim().length >= 3) expect(message).not.toContain(part.trim());
    });
  });

  test.each([
    { value: "*", origins: "*" },
    { value: " * ", origins: "*" },
    { value: "https://app.example.com", origins: ["https://app.example.com"] },
    {
      value: "https://app.example.com, http://localhost:5173 ,http://127.0.0.1:8080",
      origins: ["https://app.example.com", "http://localhost:5173", "http://127.0.0.1:8080"],
    },
  ])("CORS_ORIGINS $value is read as $origins", ({ value, origins }) => {
    expect(parseAppConfig({ CORS_ORIGINS: value }).corsOrigins).toEqual(origins);
  });

  test.each([
    "app.example.com",
    "https://app.example.com/",
    "https://app.example.com/path",
    "ftp://files.example.com",
    "https://APP.example.com",
    "https://app.example.com,",
    "https://a.example.com,,https://b.example.com",
    "*,https://app.example.com",
    "null",
  ])("CORS_ORIGINS %j is refused naming CORS_ORIGINS", (value) => {
    expectRefusal(parseAppConfig, { CORS_ORIGINS: value }, "CORS_ORIGINS");
  });

  test("numbers, as wrangler.toml [vars] hands them over, are read as written", () => {
    expect(parseAppConfig({ MAX_TASKS: 10, MAX_BODY_BYTES: 2048 })).toMatchObject({ maxTasks: 10, maxBodyBytes: 2048 });
    expectRefusal(parseAppConfig, { MAX_TASKS: 1.5 }, "MAX_TASKS");
  });

  test("LOG_LEVEL is info by default and takes each level it names", () => {
    expect(parseAppConfig({}).logLevel).toBe("info");
    for (const level of ["debug", "info", "warn", "error", "off"]) {
      expect(parseAppConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    }
  });

  test.each(["verbose", "INFO", "none"])("LOG_LEVEL %j is refused naming LOG_LEVEL", (value) => {
    expectRefusal(parseAppConfig, { LOG_LEVEL: value }, "LOG_LEVEL");
  });

  test.each([
    { value: "1", scale: 1 },
    { value: "0.05", scale: 0.05 },
    { value: ".5", scale: 0.5 },
    { value: "1.0", scale: 1 },
    { value: 0.25, scale: 0.25 },
  ])("TIME_SCALE $value is read as $scale", ({ value, scale }) => {
    expect(parseAppConfig({ TIME_SCALE: value }).timeRules.scale).toBe(scale);
  });

  test.each(["0", "0.0", "1.01", "2", "-0.5", "1e-2", "half", " 0.5", "0.5s", "Infinity", "NaN"])(
    "TIME_SCALE %j is refused, saying what it takes",
    (value) => {
      expectRefusal(parseAppConfig, { TIME_SCALE: value }, "TIME_SCALE");
      expect(() => parseAppConfig({ TIME_SCALE: value })).toThrow(
        `TIME_SCALE must be a number greater than 0 and at most 1, such as 0.05, got ${JSON.stringify(value)}`,
      );
    },
  );

  test.each([
    "BASE_PATH",
    "MAX_BODY_BYTES",
    "MAX_TASKS",
    "MAX_LIST_BYTES",
    "CORS_ORIGINS",
    "LOG_LEVEL",
    "READ_TOKENS",
    "WRITE_TOKENS",
    "TIME_SCALE",
  ])("%s set to something that is neither a string nor a number is refused naming the variable", (name) => {
    expectRefusal(parseAppConfig, { [name]: { nested: true } }, name);
  });
});

describe("parseListenConfig", () => {
  test("an empty environment gives port 8787 on 127.0.0.1", () => {
    expect(parseListenConfig({})).toEqual({ port: 8787, host: "127.0.0.1" });
  });

  test("empty strings count as unset", () => {
    expect(parseListenConfig({ PORT: "", HOST: "" })).toEqual(parseListenConfig({}));
  });

  test.each(["0", "1", "3000", "65535"])("PORT %s is read as a port", (value) => {
    expect(parseListenConfig({ PORT: value }).port).toBe(Number(value));
  });

  test.each(["65536", "-1", "80.5", "http", " 80", "8080 ", "99999999"])("PORT %j is refused naming PORT", (value) => {
    expectRefusal(parseListenConfig, { PORT: value }, "PORT");
  });

  test.each(["0.0.0.0", "127.0.0.1", "localhost", "tasks.internal.example", "::", "::1", "fe80::1"])(
    "HOST %s is read as given",
    (value) => {
      expect(parseListenConfig({ HOST: value }).host).toBe(value);
    },
  );

  test.each(["http://localhost", "[::1]", "local host", "localhost/", "host;rm", "127.0.0.1 "])(
    "HOST %j is refused naming HOST",
    (value) => {
      expectRefusal(parseListenConfig, { HOST: value }, "HOST");
    },
  );

  test("ignores the app's variables", () => {
    expect(parseListenConfig({ BASE_PATH: "bad", MAX_TASKS: "bad" })).toEqual(parseListenConfig({}));
  });
});
