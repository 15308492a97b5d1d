// The Worker as `wrangler deploy` uploads it, served by `workerd serve`: bundled by wrangler, with
// the bindings wrangler.toml gives each environment written as a workerd config. A server starts in
// a tenth of a second of CPU and answers a request in a fraction of a millisecond, where wrangler dev
// spends seconds on each start and its local proxy milliseconds on each request.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import type * as Wrangler from "wrangler";

const ROOT = resolve(import.meta.dirname, "../..");
const CONFIG = join(ROOT, "wrangler.toml");

/** What a workerd config needs from one environment of wrangler.toml. */
export interface WorkerEnvironment {
  readonly compatibilityDate: string;
  readonly compatibilityFlags: readonly string[];
  readonly vars: Readonly<Record<string, string>>;
  /** Durable Object bindings: binding name to class name. */
  readonly objects: Readonly<Record<string, string>>;
  /** The names of Hyperdrive bindings. */
  readonly hyperdrives: readonly string[];
}

/** A Worker bundled into a folder, with what wrangler.toml says about each of its environments ("" is the top level). */
export interface WorkerBundle {
  readonly dir: string;
  /** The bundle's modules, the main one first. */
  readonly modules: readonly string[];
  readonly environments: Readonly<Record<string, WorkerEnvironment>>;
}

/**
 * Bundles the Worker (the service's, or `entry`'s) into `dir`, which must not exist yet, as
 * `wrangler deploy` would upload it, and reads each environment of wrangler.toml for its config.
 */
export function bundleWorker(dir: string, entry?: string): WorkerBundle {
  // Into a folder beside it, renamed at the end: `dir` holds a whole bundle or none.
  const building = mkdtempSync(`${dir}-building-`);
  try {
    execFileSync(
      process.execPath,
      [
        join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
        "deploy",
        "--dry-run",
        "--env=",
        "--outdir",
        building,
      ].concat(entry === undefined ? [] : [entry]),
      { cwd: ROOT, env: { ...process.env, WRANGLER_SEND_METRICS: "false" }, stdio: "pipe" },
    );
    const modules = readdirSync(building)
      .filter((name) => /\.(m?js|wasm)$/.test(name))
      .sort((a, b) => Number(b === "worker.js") - Number(a === "worker.js"));
    const bundle: WorkerBundle = { dir, modules, environments: readEnvironments() };
    writeFileSync(join(building, "bundle.json"), JSON.stringify(bundle));
    renameSync(building, dir);
    return bundle;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

function readEnvironments(): Record<string, WorkerEnvironment> {
  // Required, as a CommonJS module whose exports vitest's import cannot all see, and only here:
  // wrangler takes a second and a half of CPU to load.
  const { experimental_readRawConfig, unstable_readConfig } = createRequire(import.meta.url)(
    "wrangler",
  ) as typeof Wrangler;
  const { rawConfig } = experimental_readRawConfig({ config: CONFIG });
  const environments: Record<string, WorkerEnvironment> = {};
  for (const name of ["", ...Object.keys(rawConfig.env ?? {})]) {
    const config = unstable_readConfig(
      { config: CONFIG, ...(name === "" ? {} : { env: name }) },
      { hideWarnings: true },
    );
    environments[name] = {
      compatibilityDate: config.compatibility_date ?? "",
      compatibilityFlags: config.compatibility_flags,
      vars: Object.fromEntries(Object.entries(config.vars).map(([key, value]) => [key, String(value)])),
      objects: Object.fromEntries(
        config.durable_objects.bindings.map((b: { name: string; class_name: string }) => [b.name, b.class_name]),
      ),
      hyperdrives: config.hyperdrive.map((h: { binding: string }) => h.binding),
    };
  }
  return environments;
}

/** How one `workerd serve` runs a bundle. */
export interface ServeOptions {
  readonly port: number;
  /** The environment of wrangler.toml whose compatibility settings, vars and bindings apply; "" by default. */
  readonly environment?: string;
  /** Text bindings over the environment's vars. */
  readonly vars?: Readonly<Record<string, string>>;
  /** Data bindings: binding name to a file embedded in the config. */
  readonly data?: Readonly<Record<string, string>>;
  /** Where Durable Objects keep their SQLite files, as on Cloudflare past a restart. */
  readonly objectsDir?: string;
  /** The PostgreSQL URL every Hyperdrive binding reaches, as wrangler dev's local connection string. */
  readonly hyperdrive?: string;
}

/**
 * Writes the workerd config that serves `bundle` on 127.0.0.1:`options.port` to `file`. Durable
 * Objects run with SQL enabled, as `new_sqlite_classes` declares them, in `localDisk` storage: the
 * nearest workerd has to a Durable Object's storage on Cloudflare.
 */
export function writeWorkerdConfig(file: string, bundle: WorkerBundle, options: ServeOptions): void {
  const name = options.environment ?? "";
  const environment = bundle.environments[name];
  if (environment === undefined) throw new Error(`wrangler.toml has no environment ${JSON.stringify(name)}`);
  const quote = (text: string) => JSON.stringify(text);
  // An absolute path in an embed names a file under capnp's import path: these are relative to the config.
  const embed = (path: string) => `embed ${quote(relative(dirname(file), path))}`;
  const modules = bundle.modules.map((module) => {
    const kind = module.endsWith(".wasm") ? "wasm" : "esModule";
    return `(name = ${quote(module)}, ${kind} = ${embed(join(bundle.dir, module))})`;
  });
  const bindings = Object.entries({ ...environment.vars, ...options.vars }).map(
    ([key, text]) => `(name = ${quote(key)}, text = ${quote(text)})`,
  );
  for (const [key, path] of Object.entries(options.data ?? {})) {
    bindings.push(`(name = ${quote(key)}, data = ${embed(path)})`);
  }
  const services = [`(name = "main", worker = .worker)`];
  let objects = "";
  const classes = [...new Set(Object.values(environment.objects))];
  if (classes.length > 0) {
    if (options.objectsDir === undefined) throw new Error(`The ${quote(name)} environment needs an objectsDir`);
    for (const [key, className] of Object.entries(environment.objects)) {
      bindings.push(`(name = ${quote(key)}, durableObjectNamespace = ${quote(className)})`);
    }
    mkdirSync(options.objectsDir, { recursive: true });
    services.push(`(name = "objects", disk = (path = ${quote(options.objectsDir)}, writable = true))`);
    const namespaces = classes.map((c) => `(className = ${quote(c)}, uniqueKey = ${quote(c)}, enableSql = true)`);
    objects = `\n  durableObjectNamespaces = [${namespaces.join(", ")}],\n  durableObjectStorage = (localDisk = "objects"),`;
  }
  for (const key of environment.hyperdrives) {
    if (options.hyperdrive === undefined) throw new Error(`The ${quote(name)} environment needs a hyperdrive URL`);
    const url = new URL(options.hyperdrive);
    services.push(`(name = ${quote(`hyperdrive-${key}`)}, external = (address = ${quote(url.host)}, tcp = ()))`);
    const designator = `designator = (name = ${quote(`hyperdrive-${key}`)})`;
    const login = [url.pathname.slice(1), url.username, url.password].map((part) => quote(decodeURIComponent(part)));
    bindings.push(
      `(name = ${quote(key)}, hyperdrive = (${designator}, database = ${login[0]}, user = ${login[1]}, password = ${login[2]}, scheme = "postgresql"))`,
    );
  }
  const flags = environment.compatibilityFlags.map(quote).join(", ");
  writeFileSync(
    file,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [${services.join(", ")}],
  sockets = [(name = "http", address = "127.0.0.1:${options.port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules.join(", ")}],
  compatibilityDate = ${quote(environment.compatibilityDate)},
  compatibilityFlags = [${flags}],
  bindings = [${bindings.join(", ")}],${objects}
);
`,
  );
}
