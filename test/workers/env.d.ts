// Types `exports` from "cloudflare:workers" with the Worker's own module.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../../src/runtimes/worker.ts");
  }
}
