// Clients that add each task exactly once however often they must ask: every task they mean to add
// goes with an Idempotency-Key of its own, and is sent again, same key and same body, until a 200.
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { Task } from "./check.ts";

/** A task a client means to add, and the key it sends with it every time. */
export interface IntendedTask {
  readonly key: string;
  readonly title: string;
  readonly completed: boolean;
}

/** The 200 that ended a task's attempts. */
export interface KeyedResponse {
  readonly intended: IntendedTask;
  readonly task: Task;
  /** The response carried `Idempotent-Replayed: true`: an earlier attempt had added the task. */
  readonly replayed: boolean;
}

/** What a run of {@link runKeyedClients} got. */
export interface KeyedRun {
  /** One per intended task that got its 200, in the order they came. */
  readonly answers: KeyedResponse[];
  /** Attempts sent again, by why: 503, 409 (the same key still being answered), or a lost connection. */
  readonly retried: { unavailable: number; conflict: number; lost: number };
  /** Responses no retrying client may get, and tasks that never got their 200. */
  readonly problems: string[];
}

/** How {@link runKeyedClients} loads a service. */
export interface KeyedClientsOptions {
  readonly clients: number;
  /** Starts every title, so that the run's tasks can be told from the list's others. */
  readonly prefix: string;
  /** Whether the client that is free next starts intended task number `n` (from 0). */
  readonly more: (n: number) => boolean;
  /**
   * Where attempt `attempt` (from 1) of task `n` is sent: a base URL, or a promise of one, so a
   * test can hold the attempts while its server is down.
   */
  readonly target: (n: number, attempt: number) => string | Promise<string>;
  /** Called with each 200 as it comes. */
  readonly onResponse?: (answer: KeyedResponse) => void;
  /** Pause between one task's 200 and the client's next task; default none. */
  readonly pauseMs?: number;
}

/** Pause before an attempt is sent again. */
const RETRY_PAUSE_MS = 100;
/**
 * How long a task's attempts may go on before the run says it never got its 200, and how long one
 * request may take: far above what any needs (with two suites side by side on two cores, a
 * restarted server once took over 10 s to answer a POST), below the test's own time-out, so that a
 * request that hangs is named.
 */
const GIVE_UP_MS = 90_000;
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * Runs `clients` concurrent clients. Each POSTs one intended task at a time with a key of its own,
 * and sends the same request again after a 503, a 409 or a lost connection until it gets a 200.
 * Any other answer is a problem, and so is a task still unanswered after {@link GIVE_UP_MS}.
 */
export async function runKeyedClients(options: KeyedClientsOptions): Promise<KeyedRun> {
  const run: KeyedRun = { answers: [], retried: { unavailable: 0, conflict: 0, lost: 0 }, problems: [] };
  let next = 0;
  const addOnce = async (n: number): Promise<void> => {
    const intended: IntendedTask = {
      key: `keyed-${crypto.randomUUID()}`,
      title: `${options.prefix} ${n}`,
      completed: n % 2 === 0,
    };
    const deadline = Date.now() + GIVE_UP_MS;
    for (let attempt = 1; ; attempt++) {
      if (Date.now() > deadline) {
        run.problems.push(`"${intended.title}" got no 200 in ${attempt - 1} attempts within ${GIVE_UP_MS} ms`);
        return;
      }
      const reply = await sendIntended(await options.target(n, attempt), intended).catch(() => undefined);
      if (reply === undefined) run.retried.lost++;
      else if (reply.status === 503) run.retried.unavailable++;
      else if (reply.status === 409) run.retried.conflict++;
      else if (reply.status === 200 && reply.task !== undefined) {
        const answer = { intended, task: reply.task, replayed: reply.replayed };
        run.answers.push(answer);
        options.onResponse?.(answer);
        return;
      } else {
        run.problems.push(`"${intended.title}", attempt ${attempt}: ${reply.status} ${reply.text}`);
        return;
      }
      await sleep(RETRY_PAUSE_MS);
    }
  };
  await Promise.all(
    Array.from({ length: options.clients }, async () => {
      while (options.more(next)) {
        await addOnce(next++);
        if (options.pauseMs !== undefined) await sleep(options.pauseMs);
      }
    }),
  );
  return run;
}

/** What the service answered to one POST of an intended task. */
export interface KeyedReply {
  readonly status: number;
  readonly text: string;
  /** The task of a 200. */
  readonly task: Task | undefined;
  readonly replayed: boolean;
}

/** POSTs `intended` with its key to the service at `baseUrl`; rejects when the connection is lost. */
export async function sendIntended(baseUrl: string, intended: IntendedTask): Promise<KeyedReply> {
  const res = await fetch(`${baseUrl}/tasks`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "Idempotency-Key": intended.key },
    body: JSON.stringify({ title: intended.title, completed: intended.completed }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch((error: unknown) => {
    if (error instanceof DOMException && error.name === "TimeoutError") {
      throw new Error(`"${intended.title}" got no answer within ${REQUEST_TIMEOUT_MS} ms`);
    }
    throw error;
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    task: res.status === 200 ? (JSON.parse(text) as Task) : undefined,
    replayed: res.headers.get("Idempotent-Replayed") === "true",
  };
}

/**
 * Checks that `tasks`, a whole list, holds every task of `run` exactly once, as its 200 answered
 * it: ids 1 to n with no gap, and no task under the run's prefix that the run did not mean to add.
 */
export function expectEachOnce(tasks: readonly Task[], run: KeyedRun, prefix: string): void {
  expect(run.problems).toEqual([]);
  expect(tasks.map((task) => task.id)).toEqual(tasks.map((_, i) => i + 1));
  for (const { intended, task } of run.answers) {
    expect(task).toEqual({ id: task.id, title: intended.title, completed: intended.completed });
    expect(tasks[task.id - 1], `the task "${intended.title}" answered with id ${task.id}`).toEqual(task);
  }
  const ours = tasks.filter((task) => task.title.startsWith(`${prefix} `)).map((task) => task.title);
  expect(ours.toSorted()).toEqual(run.answers.map((answer) => answer.intended.title).toSorted());
}
