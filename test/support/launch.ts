// What a test server is: how it was asked for, and what a test can do with it once it runs.
import { createServer } from "node:net";

/** The runtimes the service ships an entry for; "workerd" is the Worker. */
export type Runtime = "node" | "bun" | "deno" | "workerd";

/** A server started by {@link startServer}. */
export interface RunningServer {
  /** Where the service answers, such as http://127.0.0.1:40123 (no trailing slash, no base path). */
  readonly baseUrl: string;
  /** Stops the server and every process it started (workerd, for wrangler dev). */
  stop(): Promise<void>;
  /** Everything the server wrote to its output so far: stdout and stderr, or the Worker's console. */
  output(): string;
  /** Resident memory of the processes that hold the list, in KiB. */
  memoryKib(): number;
  /**
   * Kills every process of the server at once with SIGKILL, as a crash would, and resolves once
   * they are gone; `restartServer` starts it again on the same state.
   */
  readonly kill: () => Promise<void>;
  /**
   * Sends SIGTERM to the server's own process, as a process manager does to stop it, and resolves
   * with its exit code once it has exited by itself. Node, Bun and Deno have it.
   */
  readonly terminate?: () => Promise<number | null>;
  /**
   * The process the launcher started, for readings from /proc: the runtime itself for Node, Bun,
   * Deno and `workerd serve`, wrangler's CLI for wrangler dev.
   */
  readonly pid: number;
}

/** What {@link startServer} accepts beside the environment. */
export interface StartOptions {
  /** The environment of wrangler.toml to run the Worker in: "durable" or "postgres". */
  readonly environment?: string;
  /** The database the Worker's TASK_DB Hyperdrive binding reaches locally. */
  readonly hyperdrive?: string;
  /**
   * Start the Worker through `npm start`, wrangler dev, as a person does, rather than bundled as
   * `wrangler deploy` uploads it on `workerd serve`. The same workerd runs it with the same
   * bindings, without a local proxy in front and at a tenth of the CPU, so only the tests of the
   * command itself ask for it.
   */
  readonly cli?: boolean;
  /** A file that Node, Bun or Deno runs in place of the service's entry, with the rest of its npm script. */
  readonly entry?: string;
  /** A workerd config that `workerd serve` runs in place of the service's Worker: another Worker bundled beforehand. */
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
  /** The Worker's local state (its config, its Durable Objects' files); kept across {@link restartServer} so the list survives. */
  readonly stateDir: string | undefined;
}

/** Where the tests' servers listen. */
export const HOST = "127.0.0.1";

/** A port on 127.0.0.1 that was free a moment ago, for servers that cannot pick their own (workerd, PostgreSQL), or for a database nothing listens on. */
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
