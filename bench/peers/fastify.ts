// The peer the service is compared with: the task list contract on Fastify, written the way
// Fastify's users write a service: an array of tasks, route schemas so that fast-json-stringify
// serializes the answers, and an error handler for the contract's {"message"} bodies.
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { firstTasks } from "./tasks.ts";

const maxTasks = Number(process.env.MAX_TASKS ?? 100_000);
const maxBodyBytes = Number(process.env.MAX_BODY_BYTES ?? 1024 * 1024);
const paths = ["/tasks", "/index.php"];
const tasks = firstTasks();

const taskSchema = {
  type: "object",
  properties: { id: { type: "integer" }, title: { type: "string" }, completed: { type: "boolean" } },
  required: ["id", "title", "completed"],
} as const;

class ApiError extends Error {
  readonly statusCode: number;
  constructor(statusCode: number, message: string) {
    super(message);
    this.statusCode = statusCode;
  }
}

const app = Fastify({ bodyLimit: maxBodyBytes });

// Only JSON is accepted; a missing Content-Type is read as JSON, as the contract says.
app.removeContentTypeParser("text/plain");
app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
  const type = request.headers["content-type"];
  if (type !== undefined && !/^application\/[^\s/;]+\+json\s*(;|$)/i.test(type)) {
    done(new ApiError(415, "Content-Type must be application/json"));
    return;
  }
  app.getDefaultJsonParser("error", "error")(request, body as string, done);
});

app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
  const status = error.statusCode ?? 500;
  if (status === 400 && !(error instanceof ApiError))
    return reply.code(400).send({ message: "Request body must be valid JSON" });
  if (status === 413) return reply.code(413).send({ message: `Request body must be at most ${maxBodyBytes} bytes` });
  if (status >= 500) {
    app.log.error(error);
    return reply.code(500).send({ message: "Internal server error" });
  }
  return reply.code(status).send({ message: error.message });
});

app.setNotFoundHandler((_request, reply) => reply.code(404).send({ message: "Not found" }));

function etag(): string {
  return `"${tasks.length}"`;
}

function listTasks(request: FastifyRequest, reply: FastifyReply) {
  reply.header("ETag", etag()).header("Cache-Control", "no-cache");
  const known = request.headers["if-none-match"]?.split(",").map((tag) => tag.trim());
  if (known?.includes(etag()) || known?.includes("*")) return reply.code(304).send();
  return tasks;
}

function createTask(request: FastifyRequest) {
  const body = request.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ApiError(400, "Request body must be a JSON object with title and completed");
  }
  const { title, completed } = body as Record<string, unknown>;
  if (title === undefined || title === null || completed === undefined || completed === null) {
    throw new ApiError(400, "Title or completed status is missing");
  }
  if (typeof title !== "string") throw new ApiError(400, "title must be a string");
  if (typeof completed !== "boolean") throw new ApiError(400, "completed must be a boolean (true or false)");
  if (tasks.length >= maxTasks) throw new ApiError(507, `Task list is full: it holds the maximum of ${maxTasks} tasks`);
  const task = { id: (tasks.at(-1)?.id ?? 0) + 1, title, completed };
  tasks.push(task);
  return task;
}

for (const url of paths) {
  app.get(url, { schema: { response: { 200: { type: "array", items: taskSchema } } } }, listTasks);
  app.post(url, { schema: { response: { 200: taskSchema } } }, createTask);
  app.route({
    method: ["PUT", "DELETE", "PATCH", "OPTIONS"],
    url,
    handler: (_request, reply) => reply.code(405).header("Allow", "GET, HEAD, POST").send(),
  });
}

await app.listen({ port: Number(process.env.PORT ?? 8787), host: process.env.HOST ?? "127.0.0.1" });
process.once("SIGTERM", () => app.close().then(() => process.exit(0)));
