// The service's Worker for the tests' workerd servers: bundled once per test run, in the run's folder,
// by whichever test process asks first; each server gets a config of its own in its state folder.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Launch } from "./launch.ts";
import { RUN_DIR_VARIABLE } from "./run-files.ts";
import { bundleWorker, type WorkerBundle, writeWorkerdConfig } from "./workerd-config.ts";

/** How long a test process waits for another one's bundle: far above the two seconds it takes. */
const BUNDLE_WAIT_MS = 120_000;

let bundle: Promise<WorkerBundle> | undefined;

/** The service's Worker, bundled for this run (once for all its processes when vitest's global setup ran). */
export function serviceBundle(): Promise<WorkerBundle> {
  bundle ??= sharedBundle();
  return bundle;
}

async function sharedBundle(): Promise<WorkerBundle> {
  let runDir = process.env[RUN_DIR_VARIABLE];
  if (runDir === undefined) {
    runDir = mkdtempSync(join(tmpdir(), "task-list-worker-"));
    const made = runDir;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
  const dir = join(runDir, "worker");
  try {
    // The first process to make the lock bundles; the others wait for its bundle.
    mkdirSync(`${dir}.lock`);
  } catch {
    return waitForBundle(dir);
  }
  return bundleWorker(dir);
}

async function waitForBundle(dir: string): Promise<WorkerBundle> {
  const deadline = Date.now() + BUNDLE_WAIT_MS;
  while (!existsSync(join(dir, "bundle.json"))) {
    if (Date.now() > deadline) throw new Error(`No Worker was bundled into ${dir} within ${BUNDLE_WAIT_MS} ms`);
    await sleep(100);
  }
  return JSON.parse(readFileSync(join(dir, "bundle.json"), "utf8")) as WorkerBundle;
}

/**
 * Writes the config that serves the service's Worker on `port` as `spec` asks (its environment, vars
 * and local database), with its Durable Objects' files in its state folder, and returns its path.
 * {@link serviceBundle} must have resolved.
 */
export async function serviceConfig(spec: Launch, port: number): Promise<string> {
  if (spec.stateDir === undefined) throw new Error("A workerd server needs a state folder");
  const file = join(spec.stateDir, `workerd-${port}.capnp`);
  writeWorkerdConfig(file, await serviceBundle(), {
    port,
    vars: spec.env,
    objectsDir: join(spec.stateDir, "objects"),
    ...(spec.options.environment === undefined ? {} : { environment: spec.options.environment }),
    ...(spec.options.hyperdrive === undefined ? {} : { hyperdrive: spec.options.hyperdrive }),
  });
  return file;
}
