// The workerd ceiling: a fetch handler answering every request with the list's bytes and headers,
// given as bindings by the generated workerd config. It is stripped of its types before workerd loads it.
interface CeilingEnv {
  readonly BODY: ArrayBuffer;
  readonly HEADERS: string;
}

let headers: Record<string, string> | undefined;

export default {
  fetch(_request: Request, env: CeilingEnv): Response {
    headers ??= JSON.parse(env.HEADERS) as Record<string, string>;
    return new Response(env.BODY, { headers });
  },
};
