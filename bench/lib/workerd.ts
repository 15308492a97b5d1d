import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { basename, join } from "node:path";
import { BIN, ROOT } from "./paths.ts";

/** A workerd binding: a text value, or the bytes of a file beside the config. */
export type Binding =
  | { readonly name: string; readonly text: string }
  | { readonly name: string; readonly file: string };

/**
 * Bundles a Worker exactly as `wrangler deploy` would upload it, into `dir`, and returns the names
 * of its JavaScript modules, the main one first. The entry is the service's Worker (wrangler.toml's
 * `main`) unless `entry` names another, such as the plain Hono peer's; wrangler.toml's settings,
 * such as the compatibility date, apply to both.
 */
export function bundleWorker(dir: string, entry?: string): string[] {
  execFileSync(
    process.execPath,
    [
      join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
      "deploy",
      "--dry-run",
      "--outdir",
      dir,
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

/**
 * Writes a workerd config that serves the modules in `dir` on 127.0.0.1:`port` with `bindings`,
 * and returns its path. workerd then serves the Worker directly, without wrangler's dev proxy.
 */
export function writeWorkerdConfig(
  dir: string,
  name: string,
  options: { port: number; modules: readonly string[]; bindings: readonly Binding[] },
): string {
  const modules = options.modules.map((m) => `(name = ${JSON.stringify(m)}, esModule = embed ${JSON.stringify(m)})`);
  const bindings = options.bindings.map((b) =>
    "text" in b
      ? `(name = ${JSON.stringify(b.name)}, text = ${JSON.stringify(b.text)})`
      : `(name = ${JSON.stringify(b.name)}, data = embed ${JSON.stringify(b.file)})`,
  );
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${options.port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [${modules.join(", ")}],
  compatibilityDate = "${compatibilityDate()}",
  bindings = [${bindings.join(", ")}],
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
