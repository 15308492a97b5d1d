import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { basename, join } from "node:path";
import { BIN, ROOT } from "./paths.ts";

/**
 * A workerd binding: a text value, the bytes of a file beside the config, or the namespace of a
 * Durable Object class of the Worker (declared with {@link DurableObjects}).
 */
export type Binding =
  | { readonly name: string; readonly text: string }
  | { readonly name: string; readonly file: string }
  | { readonly name: string; readonly durableObjectNamespace: string };

/** A Durable Object class of the Worker, with SQLite storage in a folder on disk. */
export interface DurableObjects {
  readonly className: string;
  /** Names the class's objects: their IDs derive from it, and their files go in a folder of that name. */
  readonly uniqueKey: string;
  /** The folder the objects' SQLite files go in, absolute; it must exist. */
  readonly storagePath: string;
}

/**
 * Bundles a Worker exactly as `wrangler deploy` would upload it, into `dir`, and returns the names
 * of its JavaScript modules, the main one first. The entry is the service's Worker (wrangler.toml's
 * `main`) unless `entry` names another, such as the plain Hono peer's; wrangler.toml's settings,
 * such as the compatibility date, apply to both, and those of its environment `env` (`--env`) when
 * given. The bindings the environment declares are not in the bundle: the workerd config gives them.
 */
export function bundleWorker(dir: string, entry?: string, env?: string): string[] {
  execFileSync(
    process.execPath,
    [
      join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
      "deploy",
      "--dry-run",
      "--outdir",
      dir,
      ...(env === undefined ? [] : ["--env", env]),
      ...(entry === undefined ? [] : [entry]),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      stdio: "pipe",
    },
  );
  const main = `${basename(entry ?? "worker.ts").replace(/\.ts$/, "")}.js`;
  const modules = readdirSync(dir).filter((name) => /\.m?js$/.test(name));
  return modules.sort((a, b) => Number(b === main) - Number(a === main));
}

/** Writes the workerd ceiling into `dir` as JavaScript and returns its module name. */
export function writeCeilingWorker(dir: string): string {
  const source = readFileSync(join(ROOT, "bench/ceilings/worker.ts"), "utf8");
  writeFileSync(join(dir, "ceiling.js"), stripTypeScriptTypes(source));
  return "ceiling.js";
}

/** The compatibility date the project deploys with, from wrangler.toml. */
export function compatibilityDate(): string {
  const match = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(readFileSync(join(ROOT, "wrangler.toml"), "utf8"));
  if (match?.[1] === undefined) throw new Error("wrangler.toml has no compatibility_date: add one");
  return match[1];
}

function bindingText(b: Binding): string {
  const name = JSON.stringify(b.name);
  if ("text" in b) return `(name = ${name}, text = ${JSON.stringify(b.text)})`;
  if ("file" in b) return `(name = ${name}, data = embed ${JSON.stringify(b.file)})`;
  return `(name = ${name}, durableObjectNamespace = ${JSON.stringify(b.durableObjectNamespace)})`;
}

/** The disk service that holds a Worker's Durable Objects, in {@link writeWorkerdConfig}. */
const STORAGE_SERVICE = "durable-object-storage";

/**
 * Writes a workerd config that serves the modules in `dir` on 127.0.0.1:`port` with `bindings`,
 * and returns its path. workerd then serves the Worker directly, without wrangler's dev proxy.
 * With `durableObjects`, the Worker also runs that class's objects, SQL API enabled (as for
 * wrangler's `new_sqlite_classes`), stored in SQLite files under its `storagePath`: workerd's
 * `localDisk` storage, the nearest it has to a Durable Object's storage on Cloudflare.
 */
export function writeWorkerdConfig(
  dir: string,
  name: string,
  options: {
    port: number;
    modules: readonly string[];
    bindings: readonly Binding[];
    durableObjects?: DurableObjects;
  },
): string {
  const modules = options.modules.map((m) => `(name = ${JSON.stringify(m)}, esModule = embed ${JSON.stringify(m)})`);
  const objects = options.durableObjects;
  const storageService =
    objects === undefined
      ? ""
      : `, (name = "${STORAGE_SERVICE}", disk = (path = ${JSON.stringify(objects.storagePath)}, writable = true))`;
  const storage =
    objects === undefined
      ? ""
      : `
  durableObjectNamespaces = [(className = ${JSON.stringify(objects.className)}, uniqueKey = ${JSON.stringify(objects.uniqueKey)}, enableSql = true)],
  durableObjectStorage = (localDisk = "${STORAGE_SERVICE}"),`;
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)${storageService}],
  sockets = [(name = "http", address = "127.0.0.1:${options.port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules.join(", ")}],
  compatibilityDate = "${compatibilityDate()}",
  bindings = [${options.bindings.map(bindingText).join(", ")}],${storage}
);
`;
  const path = join(dir, `${name}.capnp`);
  writeFileSync(path, config);
  return path;
}

/** The command that serves a workerd config. */
export function workerdCommand(config: string) {
  return { command: BIN.workerd, args: ["serve", config] };
}
