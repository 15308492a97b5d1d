// The Bun ceiling: a Bun.serve fetch handler answering every request with the list's bytes and headers, read once at start.
const body = new Uint8Array(await Bun.file(process.env.BENCH_BODY_FILE ?? "").arrayBuffer());
const headers = JSON.parse(process.env.BENCH_HEADERS ?? "{}") as Record<string, string>;
const hostname = process.env.HOST ?? "127.0.0.1";
Bun.serve({ port: Number(process.env.PORT), hostname, fetch: () => new Response(body, { headers }) });
console.log(`Bun ceiling listening on ${hostname}:${process.env.PORT}`);
process.once("SIGTERM", () => process.exit(0));
