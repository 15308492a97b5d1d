// A WebSocket's catch-up as the client receives it: however the server writes a batch of the
// backlog (whole frames in one write, or texts corked together), each event is a message of its
// own, its text exactly the contract's, whatever the task's size or characters.
import { checkEqual, type Task } from "../support/check.ts";
import { SocketReader } from "../support/subscriber-readers.ts";
import type { Client } from "./client.ts";
import { checkQuiet } from "./live.ts";
import type { StatefulCase } from "./stateful.ts";

/**
 * Titles whose messages take each length a WebSocket frame can say (7 bits, 16, then 64), with
 * characters of one to four UTF-8 bytes: more than one batch of the backlog, big and short events in each.
 */
function titles(): string[] {
  const short = Array.from({ length: 10 }, (_, i) => `Caught up ${i}`);
  return [
    ...short.slice(0, 5),
    "é",
    "Ünïcödé ✓ 日本語 🙂".repeat(8),
    "x".repeat(200),
    "y".repeat(70_000),
    "z".repeat(65_400),
    "🙂".repeat(17_000),
    ...short.slice(5),
  ];
}

/** `{"id","event":"task","data"}`: the message for a task created after the cursor. */
function taskMessage(task: Task): string {
  return `{"id":${task.id},"event":"task","data":${JSON.stringify(task)}}`;
}

/** The cases of a WebSocket catching up on tasks of every size. */
export function socketCatchUpCases(): StatefulCase[] {
  return [
    {
      name: "a WebSocket catching up gets each task of its backlog as one message of its own, exactly, whatever the task's size or characters",
      async run(client: Client) {
        const before = (await client.readList()).tasks.at(-1)?.id ?? 0;
        const created: Task[] = [];
        for (const [i, title] of titles().entries())
          created.push(await client.create({ title, completed: i % 3 === 0 }));
        const reader = new SocketReader(client.socket(`/tasks/events?after=${before}`));
        try {
          await reader.opened();
          const messages = await reader.take(created.length, "the backlog");
          checkEqual(messages, created.map(taskMessage), "the backlog's messages, one per task, in id order");
          await checkQuiet(reader, "after the backlog");
        } finally {
          reader.close();
        }
      },
    },
  ];
}
