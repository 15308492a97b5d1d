// What a test server is: how it was asked for, and what a test can do with it once it runs.
import { createServer } from "node:net";

/** The runtimes the service ships an entry for. */
export type Runtime = "node" | "bun" | "deno" | "wrangler";

/** A server started by {@link startServer}. */
export interface RunningServer {
  /** Where the service answers, such as http://127.0.0.1:40123 (no trailing slash, no base path). */
  readonly baseUrl: string;
  /** Stops the server and every process it started (workerd for wrangler). */
  stop(): Promise<void>;
  /** Everything the server wrote to its output so far: stdout and stderr, or the Worker's console. */
  output(): string;
  /** Resident memory of the processes that hold the list, in KiB. */
  memoryKib(): number;
  /**
   * Kills every process of the server at once with SIGKILL, as a crash would, and resolves once
   * they are gone; `restartServer` starts it again on the same state. Servers that run as processes
   * of their own have it: Node, Bun, Deno, and wrangler dev through its command line.
   */
  readonly kill?: () => Promise<void>;
  /**
   * Sends SIGTERM to the server's own process, as a process manager does to stop it, and resolves
   * with its exit code once it has exited by itself. Node, Bun and Deno have it.
   */
  readonly terminate?: () => Promise<number | null>;
  /**
   * The process the launcher started, for readings from /proc: the runtime itself for Node, Bun,
   * Deno and `workerd serve`, wrangler's CLI for wrangler dev. Unset for wrangler's API.
   */
  readonly pid?: number;
}

/** What {@link startServer} accepts beside the environment. */
export interface StartOptions {
  /** The environment of wrangler.toml to run the Worker in: "durable" or "postgres". */
  readonly environment?: string;
  /** The database the Worker's TASK_DB Hyperdrive binding reaches locally. */
  readonly hyperdrive?: string;
  /**
   * Start wrangler dev through `npm start`'s command line, as a person does, rather than through
   * wrangler's API in this process. The API starts the same workerd with the same configuration
   * and bindings at a fifth of the CPU, so only the tests of the command itself ask for the CLI.
   */
  readonly cli?: boolean;
  /** A file that Node, Bun or Deno runs in place of the service's entry, with the rest of its npm script. */
  readonly entry?: string;
  /** A workerd config that `workerd serve` runs in place of wrangler dev: a Worker bundled beforehand, no proxy. */
  readonly workerdConfig?: string;
  /** The port to listen on, for a server that does not log its address (or, for workerdConfig, the config's). */
  readonly port?: number;
  /** CPUs the server runs on, as a taskset list such as "1". */
  readonly cpus?: string;
  /** A file that takes the server's output instead of this process: a request log then costs this process nothing. */
  readonly outputFile?: string;
}

/** Everything a server was started with, so that it can be started again the same way. */
export interface Launch {
  readonly runtime: Runtime;
  /** The service's settings: the process environment, or the Worker's vars. */
  readonly env: Readonly<Record<string, string>>;
  readonly options: StartOptions;
  /** wrangler's local state; kept across {@link restartServer} so a Durable Object's list survives. */
  readonly stateDir: string | undefined;
}

/** Where the tests' servers listen. */
export const HOST = "127.0.0.1";

/** A port on 127.0.0.1 that was free a moment ago, for servers that cannot pick their own (wrangler dev, PostgreSQL), or for a database nothing listens on. */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === "object") done(address.port);
        else fail(new Error("Could not find a free port on 127.0.0.1"));
      });
    });
  });
}
