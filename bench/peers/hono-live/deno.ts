// The plain Hono peer with live changes on Deno. The Deno global is typed here because the project's type check has
// no Deno types for bench/.
import app from "./app.ts";

interface DenoApi {
  env: { get(name: string): string | undefined };
  serve(
    options: { port: number; hostname: string },
    handler: (request: Request) => Response | Promise<Response>,
  ): unknown;
}
const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;

deno.serve({ port: Number(deno.env.get("PORT") ?? 8787), hostname: deno.env.get("HOST") ?? "127.0.0.1" }, app.fetch);
