// The SSE subscribers of a live trial, held by one or a few client processes
// (subscriber-client.ts) so that the harness itself stays free to send the POSTs.
import { type ChildProcess, fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ClientOrder, ClientReport } from "./protocol.ts";

const CLIENT = fileURLToPath(new URL("./subscriber-client.ts", import.meta.url));
/** Files a process needs besides its subscribers' sockets: its runtime's own, the IPC channel, logs. */
export const SPARE_FILES = 200;

/** A process's limit on open files (the soft `ulimit -n`), from /proc. */
export function openFilesLimit(pid: number | "self"): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`/proc/${pid}/limits`, "utf8"));
  return match?.[1] === undefined || match[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(match[1]);
}

/** How the subscribers' events went, over every client process. */
export interface CrowdLatencies {
  /** Milliseconds from a POST's answer reaching the harness to its event reaching a subscriber. */
  readonly latencies: Float64Array;
  readonly missed: number;
  readonly unexpected: number;
  /** Streams the server ended before the harness closed them. */
  readonly ended: number;
}

/** One client process and what it has reported so far. */
class Client {
  readonly #child: ChildProcess;
  readonly #delivered = new Set<number>();
  readonly #waiters = new Set<() => void>();
  #reports: ClientReport[] = [];
  #exited = false;

  constructor() {
    // The harness's own Node and flags, as fork gives them.
    this.#child = fork(CLIENT, [], {
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.#child.on("message", (report: ClientReport) => {
      if (report.type === "delivered") this.#delivered.add(report.index);
      else this.#reports.push(report);
      this.#wake();
    });
    this.#child.once("exit", () => {
      this.#exited = true;
      this.#wake();
    });
  }

  /** The process's id, for its CPU time. */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  tell(order: ClientOrder): void {
    if (!this.#exited) this.#child.send(order);
  }

  /** Waits for a report of `type`, failing on a "failed" report, on exit, or after `timeoutMs`. */
  async report<T extends ClientReport["type"]>(
    type: T,
    timeoutMs: number,
  ): Promise<Extract<ClientReport, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const failed = this.#reports.find((r) => r.type === "failed");
      if (failed?.type === "failed") throw new Error(failed.message);
      const found = this.#reports.find((r) => r.type === type);
      if (found !== undefined) {
        this.#reports = this.#reports.filter((r) => r !== found);
        return found as Extract<ClientReport, { type: T }>;
      }
      if (this.#exited) throw new Error("A subscriber client process exited early");
      if (Date.now() >= deadline) throw new Error(`No "${type}" from a subscriber client within ${timeoutMs} ms`);
      await this.#next(deadline);
    }
  }

  /** Whether every stream of this process got the event of task `index`, waiting until `deadline` at most. */
  async delivered(index: number, deadline: number): Promise<boolean> {
    while (!this.#delivered.has(index) && !this.#exited && Date.now() < deadline) await this.#next(deadline);
    return this.#delivered.has(index);
  }

  /** Resolves once the process has gone. */
  async exited(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.#exited && Date.now() < deadline) await this.#next(deadline);
    if (!this.#exited) this.#child.kill("SIGKILL");
  }

  #next(deadline: number): Promise<void> {
    return new Promise((wake) => {
      const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
      this.#waiters.add(() => {
        clearTimeout(timer);
        wake();
      });
    });
  }

  #wake(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }
}

/** What a crowd is opened on, and which tasks' events it measures. */
export interface CrowdOptions {
  readonly port: number;
  readonly path: string;
  readonly count: number;
  /** The id of the first task measured: the crowd subscribes after the last one in the list. */
  readonly firstId: number;
  readonly posts: number;
  /** Client processes at least: one per load CPU is enough unless the open-files limit asks for more. */
  readonly processes: number;
}

/** Subscribers split over client processes. */
export class Crowd {
  readonly #clients: readonly Client[];

  private constructor(clients: readonly Client[]) {
    this.#clients = clients;
  }

  /** Opens `count` streams and resolves once each is open; fails if one is refused or ends. */
  static async open(options: CrowdOptions): Promise<Crowd> {
    const perProcess = openFilesLimit("self") - SPARE_FILES;
    const processes = Math.max(options.processes, Math.ceil(options.count / perProcess));
    const clients = Array.from({ length: processes }, () => new Client());
    const crowd = new Crowd(clients);
    try {
      // Opening takes a few ms per stream on a busy server; a minute more covers starts and a slow machine.
      const timeoutMs = 60_000 + options.count * 10;
      clients.forEach((client, i) => {
        const count = Math.floor(options.count / processes) + (i < options.count % processes ? 1 : 0);
        client.tell({ ...options, type: "open", count });
      });
      await Promise.all(clients.map((client) => client.report("opened", timeoutMs)));
      return crowd;
    } catch (error) {
      await crowd.close();
      throw error;
    }
  }

  /** The client processes' ids. */
  get pids(): number[] {
    return this.#clients.flatMap((client) => (client.pid === undefined ? [] : [client.pid]));
  }

  /** Whether every open stream got the event of the task at `index` within `timeoutMs`. */
  async delivered(index: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    const all = await Promise.all(this.#clients.map((client) => client.delivered(index, deadline)));
    return all.every(Boolean);
  }

  /** Each event's latency, given when each POST's answer reached the harness (ms on the clients' clock). */
  async latencies(answeredAt: readonly number[]): Promise<CrowdLatencies> {
    for (const client of this.#clients) client.tell({ type: "answers", times: answeredAt });
    const reports = await Promise.all(this.#clients.map((client) => client.report("latencies", 60_000)));
    const latencies = new Float64Array(reports.reduce((n, r) => n + r.latencies.length, 0));
    let at = 0;
    for (const report of reports) {
      latencies.set(report.latencies, at);
      at += report.latencies.length;
    }
    const sum = (pick: (r: (typeof reports)[number]) => number) => reports.reduce((n, r) => n + pick(r), 0);
    return {
      latencies,
      missed: sum((r) => r.missed),
      unexpected: sum((r) => r.unexpected),
      ended: sum((r) => r.ended),
    };
  }

  /** Closes every stream, as clients that go away do, and ends the client processes. */
  async close(): Promise<void> {
    for (const client of this.#clients) client.tell({ type: "close" });
    await Promise.all(this.#clients.map((client) => client.exited(30_000)));
  }
}
