// One trial of the keys scenario (issue 45) on one server: GETs of a small named list's tasks with a
// list read key against the same GETs with a deployment read token, round by round.
import type { WrkLoad } from "../lib/load.ts";
import { median } from "../lib/median.ts";
import { type KeysSubject, type Runtime, runtimeOf, type ServerKind, serverOf } from "../lib/subjects.ts";
import { type RunSettings, startSubject } from "../lib/trial.ts";
import { createList, measureRate, namedTasksUrl, originOf, postEach } from "../lists/requests.ts";
import { INITIAL_BODIES } from "../lists/trial.ts";

/** Pairs of runs per trial, a GET with the key and one with the token in each, their order alternating. */
export const KEY_ROUNDS = 4;
/** The deployment's tokens: one of each, as a small deployment sets them. */
const READ_TOKEN = "bench-read-token";
const WRITE_TOKEN = "bench-write-token";
const LIST = "bench";
const UNSUPPORTED = "the store answers 501 to a new list";

/** One round: each GET's rate and the server's CPU µs per request. */
export interface KeyRound {
  readonly tokenRps: number;
  readonly keyRps: number;
  readonly tokenCpuUs: number;
  readonly keyCpuUs: number;
}

/** What one keys trial measured: the medians of its rounds, and the rounds; undefined where nothing was measured. */
export interface KeysReading {
  readonly runtime: Runtime;
  readonly server: ServerKind;
  /** Why nothing was measured, such as a store that holds the default list only; undefined when measured. */
  readonly notMeasured: string | undefined;
  readonly tokenRps: number | undefined;
  readonly keyRps: number | undefined;
  readonly tokenCpuUs: number | undefined;
  readonly keyCpuUs: number | undefined;
  /** The median of the rounds' key ÷ token rates, each pair run seconds apart. */
  readonly keyOverToken: number | undefined;
  /** The median of the rounds' token CPU ÷ key CPU per request: below 1, the key costs more. */
  readonly cpuTokenOverKey: number | undefined;
  readonly rounds: readonly KeyRound[];
}

const NONE = {
  tokenRps: undefined,
  keyRps: undefined,
  tokenCpuUs: undefined,
  keyCpuUs: undefined,
  keyOverToken: undefined,
  cpuTokenOverKey: undefined,
  rounds: [],
} as const;

/**
 * One trial of `subject`: a fresh service with READ_TOKENS and WRITE_TOKENS set, a list of the two
 * initial tasks and a read key of it, then {@link KEY_ROUNDS} rounds of a GET of the list's tasks
 * with the key and with the read token, one after the other; which goes first alternates from round
 * to round, and from repeat to repeat.
 */
export async function runKeysTrial(subject: KeysSubject, repeat: number, run: RunSettings): Promise<KeysReading> {
  const runtime = runtimeOf(subject);
  const server = serverOf(subject);
  const env = { ...run.env, READ_TOKENS: READ_TOKEN, WRITE_TOKENS: WRITE_TOKEN };
  const app = await startSubject(server, runtime, { ...run, env });
  try {
    const origin = originOf(app.url);
    const writer = `Bearer ${WRITE_TOKEN}`;
    if ((await createList(origin, LIST, "Bench list", writer)) === 501) {
      return { runtime, server, notMeasured: UNSUPPORTED, ...NONE };
    }
    const url = namedTasksUrl(origin, LIST);
    await postEach(url, INITIAL_BODIES, writer);
    const token = `Bearer ${READ_TOKEN}`;
    const key = `Bearer ${await createReadKey(origin, writer)}`;
    await checkGuarded(url, token, key);
    const load = (authorization: string, seconds: number): WrkLoad => ({
      url,
      script: "get",
      seconds,
      threads: run.threads,
      connections: run.connections,
      env: { BENCH_AUTHORIZATION: authorization },
    });
    for (const authorization of [token, key])
      await measureRate(app.pid, load(authorization, run.warmSeconds), run.layout);
    const rounds: KeyRound[] = [];
    for (let round = 0; round < KEY_ROUNDS; round++) {
      const measure = (authorization: string) => measureRate(app.pid, load(authorization, run.seconds), run.layout);
      const keyFirst = (repeat + round) % 2 === 0;
      const first = await measure(keyFirst ? key : token);
      const second = await measure(keyFirst ? token : key);
      const [byKey, byToken] = keyFirst ? [first, second] : [second, first];
      rounds.push({ tokenRps: byToken.rps, keyRps: byKey.rps, tokenCpuUs: byToken.cpuUs, keyCpuUs: byKey.cpuUs });
    }
    const of = (pick: (r: KeyRound) => number) => median(rounds.map(pick));
    return {
      runtime,
      server,
      notMeasured: undefined,
      tokenRps: of((r) => r.tokenRps),
      keyRps: of((r) => r.keyRps),
      tokenCpuUs: of((r) => r.tokenCpuUs),
      keyCpuUs: of((r) => r.keyCpuUs),
      keyOverToken: of((r) => r.keyRps / r.tokenRps),
      cpuTokenOverKey: of((r) => r.tokenCpuUs / r.keyCpuUs),
      rounds,
    };
  } finally {
    await app.stop();
  }
}

/** Creates a read key of the bench list with the deployment's write token and answers the key. */
async function createReadKey(origin: string, writer: string): Promise<string> {
  const response = await fetch(`${origin}/lists/${LIST}/keys`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: writer },
    body: JSON.stringify({ access: "read", label: "bench" }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /lists/${LIST}/keys answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { key: string }).key;
}

/** Throws unless the list refuses a GET without a token and answers the same bytes to the token and the key. */
async function checkGuarded(url: string, token: string, key: string): Promise<void> {
  const get = async (authorization?: string) => {
    const response = await fetch(url, authorization === undefined ? {} : { headers: { Authorization: authorization } });
    return { status: response.status, body: await response.text() };
  };
  const [none, byToken, byKey] = [await get(), await get(token), await get(key)];
  if (none.status !== 401) throw new Error(`A GET of ${url} without a token answered ${none.status}, not 401`);
  if (byToken.status !== 200 || byKey.status !== 200 || byToken.body !== byKey.body) {
    throw new Error(`GETs of ${url} answered ${byToken.status} to the token and ${byKey.status} to the key`);
  }
}
