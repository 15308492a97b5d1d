// The Deno POST ceiling: a Deno.serve handler that reads each request's body, then answers with fixed bytes, the
// list's first task, and the headers the service gives a task it created, all made once at start.
// The Deno global is typed here because the project's type check has no Deno types for bench/.
interface DenoApi {
  env: { get(name: string): string | undefined };
  readFileSync(path: string): Uint8Array<ArrayBuffer>;
  serve(options: { port: number; hostname: string }, handler: (request: Request) => Promise<Response>): unknown;
  addSignalListener(signal: "SIGTERM", handler: () => void): void;
  exit(code: number): never;
}
const deno = (globalThis as unknown as { Deno: DenoApi }).Deno;

const list = JSON.parse(
  new TextDecoder().decode(deno.readFileSync(deno.env.get("BENCH_BODY_FILE") ?? "")),
) as unknown[];
const body = new TextEncoder().encode(JSON.stringify(list[0]));
// The list's headers but those of a list: a created task has no ETag and no Cache-Control.
const listHeaders = JSON.parse(deno.env.get("BENCH_HEADERS") ?? "{}") as Record<string, string>;
const headers = Object.fromEntries(
  Object.entries(listHeaders).filter(([name]) => !["etag", "cache-control"].includes(name.toLowerCase())),
);
const hostname = deno.env.get("HOST") ?? "127.0.0.1";
deno.serve({ port: Number(deno.env.get("PORT")), hostname }, async (request) => {
  await request.arrayBuffer();
  return new Response(body, { headers });
});
deno.addSignalListener("SIGTERM", () => deno.exit(0));
