// The bench's command line: what a run measures, at which sizes, how many times and how long.
import { parseArgs } from "node:util";
import {
  FEED_SUBJECT_NAMES,
  type FeedSubject,
  KEYS_SUBJECT_NAMES,
  type KeysSubject,
  LISTS_SUBJECT_NAMES,
  LIVE_SUBJECT_NAMES,
  type ListsSubject,
  type LiveSubject,
  SUBJECT_NAMES,
  type Subject,
} from "./subjects.ts";

/** How a bench run is set up, from its command line. */
export interface BenchOptions {
  readonly quick: boolean;
  readonly subjects: readonly Subject[];
  readonly sizes: readonly number[];
  /** The servers of the live scenario (subscribers on /tasks/events), and how many subscribers each trial opens. */
  readonly liveSubjects: readonly LiveSubject[];
  readonly subscribers: readonly number[];
  /** The servers of the feed scenario, and its stalled subscribers of each kind (undefined: the scenario's default). */
  readonly feedSubjects: readonly FeedSubject[];
  readonly stalled: number | undefined;
  /** The servers of the lists scenario: a named list against /tasks, 1,000 lists, two busy lists. */
  readonly listsSubjects: readonly ListsSubject[];
  /** The servers of the keys scenario: a GET with a list key against the same GET with a deployment token. */
  readonly keysSubjects: readonly KeysSubject[];
  /** Create-and-delete pairs on each of Node, Bun and Deno the run measures; 0 skips them. */
  readonly pairs: number;
  readonly repeats: number;
  readonly seconds: number;
  readonly connections: number;
  /** Extra environment for the service and Fastify, such as LOG_LEVEL=off, to measure what a setting costs. */
  readonly env: Readonly<Record<string, string>>;
  /** A run with the default settings is the one kept in bench/results/; any other goes to bench/results/partial/. */
  readonly complete: boolean;
}

/** Usage text for --help and for a bad option. */
export const USAGE = `Usage: npm run bench -- [options]
  --quick              1 repeat of 1 s runs at 2 and 1,000 tasks (skips 100,000), live with 1,000 subscribers,
                       100,000 create-and-delete pairs: a few minutes
  --only=node,fastify  measure only these (${SUBJECT_NAMES.join(", ")});
                       "hono" stands for every hono-*, "logoff" for every *-logoff, "postgres" for every *-postgres;
                       the live scenario's servers (${LIVE_SUBJECT_NAMES.join(", ")}): "live" stands for all of them;
                       the feed scenario's (${FEED_SUBJECT_NAMES.join(", ")}): "feed" stands for all of them;
                       the lists scenario's (${LISTS_SUBJECT_NAMES.join(", ")}): "lists" stands for all of them;
                       the keys scenario's (${KEYS_SUBJECT_NAMES.join(", ")}): "keys" stands for all of them
  --sizes=2,1000       list sizes to measure (each at least 2; default 2,1000,100000)
  --subscribers=1000   subscribers of the live scenario (default 1000,10000; --quick: 1000)
  --stalled=N          stalled subscribers of each kind in the feed scenario (default 1000; --quick: 200)
  --pairs=N            create-and-delete pairs on each runtime measured (default 1000000; --quick: 100000;
                       0 skips them; otherwise more than 20000, the pairs before the baseline)
  --repeats=N          trials per server and size; the tables show medians (default 3)
  --seconds=S          length of each measured wrk run (default 3)
  --connections=N      wrk connections (default 50)
  --env=NAME=VALUE     extra environment for the service and Fastify, such as --env=LOG_LEVEL=off (repeatable)`;

/** Names --only takes for several subjects at once. */
const GROUPS: Record<string, (name: string) => boolean> = {
  hono: (s) => s.startsWith("hono-"),
  logoff: (s) => s.endsWith("-logoff"),
  postgres: (s) => s.endsWith("-postgres") && !s.startsWith("live-"),
  live: (s) => s.startsWith("live-"),
  feed: (s) => s.startsWith("feed-"),
  lists: (s) => s.startsWith("lists-"),
  keys: (s) => s.startsWith("keys-"),
};

/** The whole numbers of at least `min` in a comma-separated option, or `fallback` when it is not given. */
function numbers(text: string | undefined, name: string, min: number, fallback: readonly number[]): number[] {
  if (text === undefined) return [...fallback];
  return text.split(",").map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} must list whole numbers of at least ${min}, got ${part}\n${USAGE}`);
    return n;
  });
}

/** Reads the command line; throws with the usage text on a bad option. */
export function parseOptions(argv: readonly string[]): BenchOptions | "help" {
  const string = { type: "string" } as const;
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
      env: { type: "string", multiple: true },
      only: string,
      sizes: string,
      subscribers: string,
      stalled: string,
      pairs: string,
      repeats: string,
      seconds: string,
      connections: string,
    },
  });
  if (values.help) return "help";
  const all: readonly string[] = [
    ...SUBJECT_NAMES,
    ...LIVE_SUBJECT_NAMES,
    ...FEED_SUBJECT_NAMES,
    ...LISTS_SUBJECT_NAMES,
    ...KEYS_SUBJECT_NAMES,
  ];
  const only = values.only?.split(",").flatMap((name) => {
    const group = GROUPS[name.trim()];
    if (group !== undefined) return all.filter(group);
    if (all.includes(name.trim())) return [name.trim()];
    throw new Error(`--only takes ${[...all, ...Object.keys(GROUPS)].join(", ")}, got ${name}\n${USAGE}`);
  });
  // Without --only every server runs; in the order of the lists, which keeps each runtime's together.
  const chosen = <T extends string>(names: readonly T[]) => names.filter((s) => only === undefined || only.includes(s));
  const quick = values.quick;
  const [pairs = 0] = numbers(values.pairs, "pairs", 0, [quick ? 100_000 : 1_000_000]);
  if (pairs > 0 && pairs <= 20_000) throw new Error(`--pairs must be 0 or more than 20000, got ${pairs}\n${USAGE}`);
  const env = Object.fromEntries(
    (values.env ?? []).map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new Error(`--env takes NAME=VALUE, got ${pair}\n${USAGE}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  return {
    quick,
    subjects: chosen(SUBJECT_NAMES),
    // The quick run skips 100,000 tasks, and 10,000 subscribers: about a minute each on their own.
    sizes: numbers(values.sizes, "sizes", 2, quick ? [2, 1_000] : [2, 1_000, 100_000]),
    liveSubjects: chosen(LIVE_SUBJECT_NAMES),
    subscribers: numbers(values.subscribers, "subscribers", 1, quick ? [1_000] : [1_000, 10_000]),
    feedSubjects: chosen(FEED_SUBJECT_NAMES),
    stalled: numbers(values.stalled, "stalled", 1, [])[0],
    listsSubjects: chosen(LISTS_SUBJECT_NAMES),
    keysSubjects: chosen(KEYS_SUBJECT_NAMES),
    pairs,
    repeats: numbers(values.repeats, "repeats", 1, [quick ? 1 : 3])[0] ?? 3,
    seconds: numbers(values.seconds, "seconds", 1, [quick ? 1 : 3])[0] ?? 3,
    connections: numbers(values.connections, "connections", 1, [50])[0] ?? 50,
    env,
    complete: !quick && argv.length === 0,
  };
}
