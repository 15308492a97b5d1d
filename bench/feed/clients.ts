// The harness's end of the feed scenario's client processes: one order to each, then its reports,
// and its sockets gone with it when it ends. Catching-up subscribers are a Node process
// (feed-client.ts), stalled ones a Bun process (stall-client.ts).
import { type ChildProcess, fork, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FeedOrder, FeedReport, Transport } from "./protocol.ts";

const CLIENT = fileURLToPath(new URL("./feed-client.ts", import.meta.url));
const STALL_CLIENT = fileURLToPath(new URL("./stall-client.ts", import.meta.url));
const BUN = fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url));

/** One client process holding subscribers. */
export class FeedClient {
  readonly #child: ChildProcess;
  #reports: FeedReport[] = [];
  #wake: (() => void) | undefined;
  #exited = false;

  /** Starts a client process and gives it `order`. */
  constructor(order: FeedOrder) {
    // The harness's own Node and flags, as fork gives them.
    this.#child = fork(CLIENT, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    this.#child.on("message", (report: FeedReport) => {
      this.#reports.push(report);
      this.#wake?.();
    });
    this.#child.once("exit", () => {
      this.#exited = true;
      this.#wake?.();
    });
    this.#child.send(order);
  }

  /** Tells the process to close its catching-up subscribers and report what they did. */
  stop(): void {
    if (!this.#exited) this.#child.send({ type: "stop" } satisfies FeedOrder);
  }

  /** Waits for a report of `type`, failing on a "failed" report, on exit, or after `timeoutMs`. */
  async report<T extends FeedReport["type"]>(type: T, timeoutMs: number): Promise<Extract<FeedReport, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.#reports.find((r) => r.type === type || r.type === "failed");
      if (found?.type === "failed") throw new Error(found.message);
      if (found !== undefined) {
        this.#reports = this.#reports.filter((r) => r !== found);
        return found as Extract<FeedReport, { type: T }>;
      }
      if (this.#exited) throw new Error("A feed client process exited early");
      if (Date.now() >= deadline) throw new Error(`No "${type}" from a feed client within ${timeoutMs} ms`);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, deadline - Date.now());
        this.#wake = () => {
          clearTimeout(timer);
          wake();
        };
      });
    }
  }

  /** Ends the process, and with it every socket it holds; resolves once it has gone. */
  async close(): Promise<void> {
    if (this.#exited) return;
    const exited = new Promise((done) => this.#child.once("exit", done));
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** A process holding subscribers that stopped reading after their answer's first bytes. */
export class StallClient {
  readonly #child: ChildProcess;
  /** The subscribers' local ports, which tell their connections from others to the same server. */
  readonly ports: ReadonlySet<number>;

  private constructor(child: ChildProcess, ports: ReadonlySet<number>) {
    this.#child = child;
    this.ports = ports;
  }

  /** Opens `count` subscribers over `transport` to the server on `port`, from 0, and resolves once each has stalled. */
  static async open(port: number, transport: Transport, count: number): Promise<StallClient> {
    // The harness's CPUs, which the child inherits.
    const child = spawn(BUN, [STALL_CLIENT, String(port), transport, String(count)], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let errors = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const first = await Promise.race([
      once(lines, "line").then(([line]) => String(line)),
      once(child, "exit").then(() => undefined),
    ]);
    if (first === undefined) throw new Error(`The stalled subscribers' process failed: ${errors.trim()}`);
    const { ports } = JSON.parse(first) as { ports: number[] };
    return new StallClient(child, new Set(ports));
  }

  /** Ends the process, which closes every subscriber; resolves once it has gone. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = once(this.#child, "exit");
    this.#child.stdin?.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
