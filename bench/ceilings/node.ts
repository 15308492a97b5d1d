// The Node ceiling: node:http answering every request with the list's bytes and headers, read once at start.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const body = readFileSync(process.env.BENCH_BODY_FILE ?? "");
const headers = {
  ...(JSON.parse(process.env.BENCH_HEADERS ?? "{}") as Record<string, string>),
  "Content-Length": String(body.byteLength),
};
const host = process.env.HOST ?? "127.0.0.1";
const server = createServer((_request, response) => {
  response.writeHead(200, headers);
  response.end(body);
});
server.listen(Number(process.env.PORT), host, () =>
  console.log(`Node ceiling listening on ${host}:${process.env.PORT}`),
);
process.once("SIGTERM", () => process.exit(0));
