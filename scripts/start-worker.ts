// `npm start`: wrangler dev as it is, flags after `--` included, without its lookup of the
// `request.cf` object, which the service never reads and which, offline, prints an error and a
// stack trace twice.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const manifest = createRequire(import.meta.url).resolve("wrangler/package.json");
const wrangler = join(dirname(manifest), "bin", "wrangler.js");
const child = spawn(process.execPath, [wrangler, "dev", ...process.argv.slice(2)], {
  stdio: "inherit",
  env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env },
});
// A terminal's Ctrl-C reaches wrangler itself, in the same foreground group; a signal sent to this
// process alone is passed on, so that a supervisor's stop stops wrangler too.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  process.exit(code ?? (signal === null ? 1 : 0));
});
