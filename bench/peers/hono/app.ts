// The plain Hono peer: the task list specification in a few lines, as a Hono user would write it.
// An array in memory, the two routes on both paths, and the one check the specification asks for:
// no logs, no ETag, no limits. The service is measured against it on each runtime (× plain Hono).
import { Hono } from "hono";
import { firstTasks } from "../tasks.ts";

const tasks = firstTasks();

const app = new Hono();

app.on("GET", ["/tasks", "/index.php"], (c) => c.json(tasks));

app.on("POST", ["/tasks", "/index.php"], async (c) => {
  const { title, completed } = await c.req.json();
  if (title == null || completed == null) return c.json({ message: "Title or completed status is missing" }, 400);
  const task = { id: (tasks.at(-1)?.id ?? 0) + 1, title, completed };
  tasks.push(task);
  return c.json(task);
});

export default app;
