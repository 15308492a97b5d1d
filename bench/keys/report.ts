// The keys scenario's table in results.md and its target (issue 45): a GET with a list key costs
// at most 5% more than the same GET with a deployment token.
import type { Merged } from "../lib/results.ts";
import { RUNTIMES, type ServerKind } from "../lib/subjects.ts";
import { table } from "../lib/table.ts";
import type { TargetCheck } from "../lib/target-check.ts";
import { KEY_ROUNDS, type KeysReading } from "./trial.ts";

type Row = Merged<KeysReading>;
/** "Checking a key adds at most 5%": the keyed GET's rate at least this much of the token's. */
const KEY_RATIO = 0.95;

const int = (x: number | undefined) => (x === undefined ? "–" : Math.round(x).toLocaleString("en"));
const dec = (digits: number) => (x: number | undefined) => (x === undefined ? "–" : x.toFixed(digits));

function label(row: { runtime: string; server: ServerKind }): string {
  return row.server === "app-durable" ? `${row.runtime}, Durable Object` : row.runtime;
}

/** The subjects of the target, in the order of the targets table. */
const SUBJECTS = [
  ...RUNTIMES.map((runtime) => ({ runtime, server: "app" as const })),
  { runtime: "workerd" as const, server: "app-durable" as const },
];

/** Issue 45's target on each runtime with lists in memory and on the Durable Object. */
export function checkKeysTargets(keys: readonly Row[]): TargetCheck[] {
  return SUBJECTS.map((subject) => {
    const row = keys.find((r) => r.runtime === subject.runtime && r.server === subject.server);
    const value = row?.keyOverToken;
    return {
      issue: "#45",
      target: `GET of a list of 2 tasks with a list read key ≥ ${KEY_RATIO} × with a read token (paired rounds)`,
      subject: label(subject),
      value:
        value === undefined
          ? `not measured${row?.notMeasured ? `: ${row.notMeasured}` : ""}`
          : `${value.toFixed(2)} × (${int(row?.keyRps)} against ${int(row?.tokenRps)} req/s)`,
      met: value === undefined ? undefined : value >= KEY_RATIO,
    };
  });
}

/** The keys scenario's table: medians over rounds, then over trials. */
export function keysTable(keys: readonly Row[]): string {
  const rows = [...keys].sort(
    (a, b) => RUNTIMES.indexOf(a.runtime) - RUNTIMES.indexOf(b.runtime) || a.server.localeCompare(b.server),
  );
  const measured = rows.filter((r) => r.notMeasured === undefined);
  const skipped = rows.filter((r) => r.notMeasured !== undefined).map((r) => `- ${label(r)}: ${r.notMeasured}.`);
  const body = table(
    measured,
    [
      ["Runtime", label],
      ["token req/s", (r) => int(r.tokenRps)],
      ["key req/s", (r) => int(r.keyRps)],
      ["key ÷ token", (r) => dec(2)(r.keyOverToken)],
      ["token CPU µs/req", (r) => dec(1)(r.tokenCpuUs)],
      ["key CPU µs/req", (r) => dec(1)(r.keyCpuUs)],
      ["token CPU ÷ key CPU", (r) => dec(2)(r.cpuTokenOverKey)],
      ["trials", (r) => `${int(r.trials)} × ${KEY_ROUNDS} rounds`],
    ],
    1,
  );
  const heading = "## A list key against a deployment token";
  return [measured.length === 0 ? heading : `${heading}\n\n${body}`, ...skipped].join("\n\n");
}
