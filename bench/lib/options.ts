import { parseArgs } from "node:util";
import { FULL_SUBSCRIBERS, LIVE_SUBJECTS, type LiveSubject, QUICK_SUBSCRIBERS } from "../live/subjects.ts";
import { SUBJECTS, type Subject } from "./measurements.ts";

/** How a bench run is set up, from its command line. */
export interface BenchOptions {
  readonly quick: boolean;
  readonly subjects: readonly Subject[];
  readonly sizes: readonly number[];
  /** The servers of the live scenario (subscribers on /tasks/events), and how many subscribers each trial opens. */
  readonly liveSubjects: readonly LiveSubject[];
  readonly subscribers: readonly number[];
  /** Create-and-delete pairs of the memory scenario, on each of Node, Bun and Deno the run measures; 0 skips it. */
  readonly pairs: number;
  readonly repeats: number;
  readonly seconds: number;
  readonly warmSeconds: number;
  readonly connections: number;
  /** Extra environment for the service and Fastify, such as LOG_LEVEL=off, to measure what a setting costs. */
  readonly env: Readonly<Record<string, string>>;
  /** A run with the default settings is the one kept in bench/results/; any other goes to bench/results/partial/. */
  readonly complete: boolean;
}

const FULL_SIZES = [2, 1_000, 100_000];
/** The quick run skips 100,000 tasks: growing the service, plain Hono and Fastify to it takes about a minute alone. */
const QUICK_SIZES = [2, 1_000];

/** Usage text for --help and for a bad option. */
export const USAGE = `Usage: npm run bench -- [options]
  --quick              1 repeat of 1 s runs at 2 and 1,000 tasks (skips 100,000), live with 1,000 subscribers,
                       100,000 create-and-delete pairs, in about six minutes
  --only=node,fastify  measure only these (${SUBJECTS.join(", ")});
                       "hono" stands for every hono-*, "logoff" for every *-logoff, "postgres" for every *-postgres;
                       the live scenario's servers (${LIVE_SUBJECTS.join(", ")}): "live" stands for all of them
  --sizes=2,1000       list sizes to measure (each at least 2)
  --subscribers=1000   subscribers of the live scenario (default 1000,10000; --quick: 1000)
  --pairs=N            create-and-delete pairs of the memory scenario on each runtime measured (default 1000000;
                       --quick: 100000; 0 skips it; otherwise more than 20000, the pairs before its baseline)
  --repeats=N          trials per server and size; the tables show medians (default 3)
  --seconds=S          length of each measured wrk run (default 3)
  --connections=N      wrk connections (default 50)
  --env=NAME=VALUE     extra environment for the service and Fastify, such as --env=LOG_LEVEL=off (repeatable)`;

/** Names --only takes for several subjects at once. */
const GROUPS: Record<string, (subject: Subject) => boolean> = {
  hono: (s) => s.startsWith("hono-"),
  logoff: (s) => s.endsWith("-logoff"),
  postgres: (s) => s.endsWith("-postgres"),
};

function numbers(text: string, name: string, min: number): number[] {
  return text.split(",").map((part) => {
    const n = Number(part.trim());
    if (!Number.isInteger(n) || n < min)
      throw new Error(`--${name} must list whole numbers of at least ${min}, got ${part}\n${USAGE}`);
    return n;
  });
}

/** Reads the command line; throws with the usage text on a bad option. */
export function parseOptions(argv: readonly string[]): BenchOptions | "help" {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      sizes: { type: "string" },
      subscribers: { type: "string" },
      pairs: { type: "string" },
      repeats: { type: "string" },
      seconds: { type: "string" },
      connections: { type: "string" },
      env: { type: "string", multiple: true },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) return "help";
  const names = values.only?.split(",").map((name) => name.trim());
  const live = names?.filter((name) => name === "live" || LIVE_SUBJECTS.some((s) => s === name));
  const liveSubjects =
    live === undefined || live.includes("live") ? [...LIVE_SUBJECTS] : LIVE_SUBJECTS.filter((s) => live.includes(s));
  const only = names
    ?.filter((name) => !live?.includes(name))
    .flatMap((name): Subject[] => {
      const group = GROUPS[name];
      if (group !== undefined) return SUBJECTS.filter(group);
      const subject = SUBJECTS.find((s) => s === name);
      if (subject === undefined)
        throw new Error(
          `--only takes ${[...SUBJECTS, ...Object.keys(GROUPS), ...LIVE_SUBJECTS, "live"].join(", ")}, got ${name}\n${USAGE}`,
        );
      return [subject];
    });
  // In SUBJECTS' order, which keeps each runtime's servers together in every repeat.
  const subjects = only === undefined ? [...SUBJECTS] : SUBJECTS.filter((s) => only.includes(s));
  const quick = values.quick;
  const sizes = values.sizes === undefined ? (quick ? QUICK_SIZES : FULL_SIZES) : numbers(values.sizes, "sizes", 2);
  const subscribers =
    values.subscribers === undefined
      ? quick
        ? QUICK_SUBSCRIBERS
        : FULL_SUBSCRIBERS
      : numbers(values.subscribers, "subscribers", 1);
  const pairs =
    values.pairs === undefined ? (quick ? 100_000 : 1_000_000) : (numbers(values.pairs, "pairs", 0)[0] ?? 0);
  if (pairs > 0 && pairs <= 20_000) throw new Error(`--pairs must be 0 or more than 20000, got ${pairs}\n${USAGE}`);
  const repeats = values.repeats === undefined ? (quick ? 1 : 3) : (numbers(values.repeats, "repeats", 1)[0] ?? 3);
  const seconds = values.seconds === undefined ? (quick ? 1 : 3) : (numbers(values.seconds, "seconds", 1)[0] ?? 3);
  const connections = values.connections === undefined ? 50 : (numbers(values.connections, "connections", 1)[0] ?? 50);
  const env = Object.fromEntries(
    (values.env ?? []).map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new Error(`--env takes NAME=VALUE, got ${pair}\n${USAGE}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  const complete = !quick && argv.length === 0;
  return {
    quick,
    subjects,
    sizes,
    liveSubjects,
    subscribers,
    pairs,
    repeats,
    seconds,
    warmSeconds: 1,
    connections,
    env,
    complete,
  };
}
