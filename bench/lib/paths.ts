import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The project's root folder. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * A binary from node_modules/.bin, followed to the file it links to, so that the process started
 * is the runtime itself and its pid is the server's.
 */
function bin(name: string): string {
  return realpathSync(`${ROOT}node_modules/.bin/${name}`);
}

/** The runtimes' own binaries, all from node_modules. */
export const BIN = {
  node: bin("node"),
  bun: bin("bun"),
  deno: bin("deno"),
  workerd: bin("workerd"),
} as const;
