/** A broken contract rule; its message says what was expected and what came back. */
export class ConformanceFailure extends Error {
  override name = "ConformanceFailure";
}

/** Fails the case with `message`. */
export function fail(message: string): never {
  throw new ConformanceFailure(message);
}

/** Fails the case with `message` unless `condition` holds. */
export function check(condition: boolean, message: string): asserts condition {
  if (!condition) fail(message);
}

/** Fails unless `actual` and `expected` have the same JSON form (key order included). */
export function checkEqual(actual: unknown, expected: unknown, what: string): void {
  const got = JSON.stringify(actual);
  const wanted = JSON.stringify(expected);
  if (got !== wanted) fail(`${what}: expected ${clip(wanted)}, got ${clip(got)}`);
}

/** Shortens a value shown in a failure so one line stays readable. */
export function clip(text: string | undefined, max = 300): string {
  if (text === undefined) return "undefined";
  return text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text;
}
