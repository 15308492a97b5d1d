// The served OpenAPI document as real tools take it: Redocly's spec rules find no error, its
// recommended rules and Spectral's oas rules find nothing at all, and a client typed from it by
// openapi-typescript compiles under strict TypeScript.
import path from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { type RulesetDefinition, Spectral } from "@stoplight/spectral-core";
import { oas } from "@stoplight/spectral-rulesets";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { describe, expect, test } from "vitest";
import type { EnvRecord } from "../../src/config.ts";
import { appFrom } from "./helpers.ts";

const TOKENS = { READ_TOKENS: "read-token-0123456789", WRITE_TOKENS: "write-token-0123456789" };
const CONFIGURATIONS: readonly { name: string; env: EnvRecord; base: string }[] = [
  { name: "no tokens", env: {}, base: "" },
  { name: "no tokens and CORS", env: { CORS_ORIGINS: "*" }, base: "" },
  { name: "a base path", env: { BASE_PATH: "/api" }, base: "/api" },
  { name: "tokens and CORS", env: { ...TOKENS, CORS_ORIGINS: "*" }, base: "" },
  { name: "write tokens only", env: { WRITE_TOKENS: TOKENS.WRITE_TOKENS }, base: "" },
];

/** Loading each tool's rules takes seconds on a busy machine. */
const SLOW = 120_000;

const documentOf = async ({ env, base }: { env: EnvRecord; base: string }): Promise<string> =>
  (await appFrom(env).request(`${base}/openapi.json`)).text();

describe.each(CONFIGURATIONS)("the document with $name", (configuration) => {
  test(
    "passes Redocly's spec rules with no error",
    async () => {
      const config = await createConfig({ extends: ["spec"] });
      const problems = await lintFromString({
        source: await documentOf(configuration),
        absoluteRef: "openapi.json",
        config,
      });
      const errors = problems.filter((problem) => problem.severity === "error");
      expect(errors.map(({ ruleId, message, location }) => `${ruleId}: ${message} at ${location[0]?.pointer}`)).toEqual(
        [],
      );
    },
    SLOW,
  );

  test(
    "passes Redocly's recommended rules with no problem of any severity",
    async () => {
      const config = await createConfig({ extends: ["recommended"] });
      const problems = await lintFromString({
        source: await documentOf(configuration),
        absoluteRef: "openapi.json",
        config,
      });
      expect(
        problems.map(
          ({ ruleId, severity, message, location }) => `${severity} ${ruleId}: ${message} at ${location[0]?.pointer}`,
        ),
      ).toEqual([]);
    },
    SLOW,
  );

  test(
    "passes Spectral's oas rules with no problem of any severity",
    async () => {
      const spectral = new Spectral();
      // The rulesets package types `oas` as a plain object, which TypeScript does not match to the union setRuleset takes.
      spectral.setRuleset(oas as RulesetDefinition);
      const results = await spectral.run(await documentOf(configuration));
      // Severity 0 is an error, 1 a warning, 2 information and 3 a hint: none is left.
      expect(
        results.map(({ code, severity, message, path: at }) => `${severity} ${code}: ${message} at ${at.join(".")}`),
      ).toEqual([]);
    },
    SLOW,
  );
});

/** A client of the list, typed from the document: it reads after a cursor, and creates a task. */
const CLIENT = `
import createClient from "openapi-fetch";
import type { paths } from "./API";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:8787" });

export async function newTasks(after: number): Promise<{ id: number; title: string; completed: boolean }[]> {
  const { data, error } = await client.GET("/tasks", { params: { query: { after } } });
  if (error !== undefined) throw new Error(error.message);
  return data;
}

export async function addTask(title: string): Promise<number> {
  const { data, error } = await client.POST("/tasks", {
    body: { title, completed: false },
    params: { header: { "Idempotency-Key": crypto.randomUUID() } },
  });
  if (error !== undefined) throw new Error(error.message);
  return data.id;
}
`;

test(
  "a client typed from each document by openapi-typescript compiles under tsc --strict without skipLibCheck",
  async () => {
    // The files live only in memory, beside this one, so that "openapi-fetch" resolves.
    const files = new Map<string, string>();
    for (const [index, configuration] of CONFIGURATIONS.entries()) {
      const types = astToString(await openapiTS(JSON.parse(await documentOf(configuration))));
      const api = `typed-client-${index}.api.ts`;
      files.set(path.resolve(import.meta.dirname, api), types);
      files.set(path.resolve(import.meta.dirname, `typed-client-${index}.ts`), CLIENT.replace("./API", `./${api}`));
    }
    const options: ts.CompilerOptions = {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      allowImportingTsExtensions: true,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: [],
    };
    const host = ts.createCompilerHost(options);
    const { getSourceFile, fileExists, readFile } = host;
    host.fileExists = (name) => files.has(name) || fileExists(name);
    host.readFile = (name) => files.get(name) ?? readFile(name);
    host.getSourceFile = (name, language, ...rest) => {
      const text = files.get(name);
      return text === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, text, language);
    };
    const program = ts.createProgram(
      [...files.keys()].filter((name) => !name.endsWith(".api.ts")),
      options,
      host,
    );
    const diagnostics = ts.getPreEmitDiagnostics(program);
    expect(diagnostics.map((each) => ts.flattenDiagnosticMessageText(each.messageText, "\n"))).toEqual([]);
  },
  SLOW,
);
