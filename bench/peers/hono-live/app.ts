// The plain Hono peer with live changes, as a Hono user would write them: the plain peer's list and
// routes, and `/tasks/events` through Hono's streamSSE, each stream kept in a Set of writers that
// every POST writes its task to. No cursor, no backlog, no limits. The bench's live scenario
// measures the service's fan-out against it.
import { Hono } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import { firstTasks } from "../tasks.ts";

const tasks = firstTasks();
const writers = new Set<SSEStreamingApi>();

const app = new Hono();

app.on("GET", ["/tasks", "/index.php"], (c) => c.json(tasks));

app.get("/tasks/events", (c) =>
  streamSSE(c, async (stream) => {
    writers.add(stream);
    // A first line, so that the client knows its stream is open before any task comes.
    await stream.write(": connected\n\n");
    await new Promise<void>((resolve) =>
      stream.onAbort(() => {
        writers.delete(stream);
        resolve();
      }),
    );
  }),
);

app.on("POST", ["/tasks", "/index.php"], async (c) => {
  const { title, completed } = await c.req.json();
  if (title == null || completed == null) return c.json({ message: "Title or completed status is missing" }, 400);
  const task = { id: (tasks.at(-1)?.id ?? 0) + 1, title, completed };
  tasks.push(task);
  const data = JSON.stringify(task);
  for (const stream of writers) void stream.writeSSE({ event: "task", id: String(task.id), data });
  return c.json(task);
});

export default app;
