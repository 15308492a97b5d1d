// The route table's rules, for routes to come as for those served: a path parameter is documented
// as OpenAPI writes it, each route's Allow lists its own methods, and an alias's operations get ids
// of their own.
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { expect, test } from "vitest";
import { parseAppConfig } from "../../src/config.ts";
import { allowOf, type DocumentedRoute, openApiDocument, openApiPath } from "../../src/pages/openapi.ts";

const TASK_ID = "/tasks/:id{[1-9][0-9]{0,14}}";

const operation = (operationId: string, status: string) => ({
  operationId,
  summary: operationId,
  description: operationId,
  responses: { [status]: { description: operationId } },
});

/** A route of one task, as `/tasks/{id}` may be written: every method but POST. */
const ONE_TASK: DocumentedRoute = {
  paths: [TASK_ID],
  parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
  tag: "tasks",
  cors: true,
  methods: {
    GET: {
      access: "read",
      operation: operation("getTask", "200"),
      head: { operationId: "headTask", summary: "headTask" },
    },
    PUT: { access: "write", operation: operation("replaceTask", "200") },
    PATCH: { access: "write", operation: operation("patchTask", "200") },
    DELETE: { access: "write", operation: operation("deleteTask", "204") },
  },
};

/** A route served at two paths. */
const ALIASED: DocumentedRoute = {
  paths: ["/things", "/index.php"],
  tag: "documents",
  cors: false,
  methods: {
    GET: {
      access: "public",
      operation: operation("listThings", "200"),
      head: { operationId: "headThings", summary: "headThings" },
    },
    POST: {
      access: "write",
      operation: operation("addThing", "200"),
    },
  },
};

test("a path parameter with a pattern is documented as {name}, braces in its pattern included", () => {
  expect(openApiPath(TASK_ID)).toBe("/tasks/{id}");
  expect(openApiPath("/lists/:list/tasks/:id")).toBe("/lists/{list}/tasks/{id}");
  expect(openApiPath("/index.php")).toBe("/index.php");
});

test("each route's Allow lists its own methods in order, HEAD with GET", () => {
  expect(allowOf(ONE_TASK)).toBe("GET, HEAD, PUT, PATCH, DELETE");
  expect(allowOf(ALIASED)).toBe("GET, HEAD, POST");
});

test("a document with a path parameter, aliases and tokens passes Redocly's spec rules", async () => {
  const config = parseAppConfig({ WRITE_TOKENS: "write-token-0123456789", CORS_ORIGINS: "*" });
  const document = openApiDocument(config, [ALIASED, ONE_TASK]);
  const paths = document.paths as Record<string, Record<string, { operationId?: string; security?: unknown }>>;
  expect(Object.keys(paths)).toEqual(["/things", "/index.php", "/tasks/{id}"]);
  expect(paths["/index.php"]?.get?.operationId).toBe("listThingsIndexPhp");
  expect(paths["/tasks/{id}"]?.head?.operationId).toBe("headTask");
  expect(paths["/tasks/{id}"]?.options?.operationId).toBe("preflightTasksId");
  expect(paths["/tasks/{id}"]?.delete?.security).toEqual([{ bearerToken: [] }]);
  expect(paths["/tasks/{id}"]?.get?.security).toEqual([]);
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: "openapi.json",
    config: await createConfig({ extends: ["spec"] }),
  });
  expect(problems.filter((problem) => problem.severity === "error").map((problem) => problem.message)).toEqual([]);
});
