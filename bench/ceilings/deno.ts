// The Deno ceiling: a Deno.serve handler answering every request with the list's bytes and headers, read once at start.
// The Deno global is typed here because the project's type check has no Deno types for bench/.
interface DenoApi {
  env: { get(name: string): string | undefined };
  readFileSync(path: string): Uint8Array<ArrayBuffer>;
  serve(options: { port: number; hostname: string }, handler: () => Response): unknown;
  addSignalListener(signal: "SIGTERM", handler: () => void): void;
  exit(code: number): never;
}
const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;

const body = deno.readFileSync(deno.env.get("BENCH_BODY_FILE") ?? "");
const headers = JSON.parse(deno.env.get("BENCH_HEADERS") ?? "{}") as Record<string, string>;
const hostname = deno.env.get("HOST") ?? "127.0.0.1";
deno.serve({ port: Number(deno.env.get("PORT")), hostname }, () => new Response(body, { headers }));
deno.addSignalListener("SIGTERM", () => deno.exit(0));
