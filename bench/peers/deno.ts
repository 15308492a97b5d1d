// Serves a peer with Deno.serve on PORT and HOST. The Deno global is typed here because the
// project's type check has no Deno types for bench/.
interface DenoApi {
  env: { get(name: string): string | undefined };
  serve(
    options: { port: number; hostname: string },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
}
const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;

/** Serves `fetch`, a peer's request handler. */
export function serveOnDeno(fetch: (request: Request) => Response | Promise<Response>): void {
  deno.serve({ port: Number(deno.env.get("PORT") ?? 8787), hostname: deno.env.get("HOST") ?? "127.0.0.1" }, fetch);
}
