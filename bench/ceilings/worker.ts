// The workerd ceiling: a fetch handler answering every request with the list's bytes and headers,
// given as bindings by the workerd config the bench writes (bench/lib/servers.ts).
interface CeilingEnv {
  readonly BENCH_BODY: ArrayBuffer;
  readonly BENCH_HEADERS: string;
}

let headers: Record<string, string> | undefined;

export default {
  fetch(_request: Request, env: CeilingEnv): Response {
    headers ??= JSON.parse(env.BENCH_HEADERS) as Record<string, string>;
    return new Response(env.BENCH_BODY, { headers });
  },
};
