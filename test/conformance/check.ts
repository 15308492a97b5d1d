/** A broken contract rule; its message says what was expected and what came back. */
export class ConformanceFailure extends Error {
  override name = "ConformanceFailure";
}

/**
 * What a failed check says: a string, or a function that makes it, for a message that would
 * otherwise encode a large body on every check that passes (a full list is 16 MiB).
 */
export type Message = string | (() => string);

/** Fails the case with `message`. */
export function fail(message: Message): never {
  throw new ConformanceFailure(typeof message === "function" ? message() : message);
}

/** Fails the case with `message` unless `condition` holds. */
export function check(condition: boolean, message: Message): asserts condition {
  if (!condition) fail(message);
}

/** Fails unless `actual` and `expected` have the same JSON form (key order included). */
export function checkEqual(actual: unknown, expected: unknown, what: Message): void {
  // Two strings have the same JSON form exactly when they are equal: no need to encode a list's text.
  if (typeof actual === "string" && typeof expected === "string" && actual === expected) return;
  const got = JSON.stringify(actual);
  const wanted = JSON.stringify(expected);
  if (got !== wanted)
    fail(() => `${typeof what === "function" ? what() : what}: expected ${clip(wanted)}, got ${clip(got)}`);
}

/** Shortens a value shown in a failure so one line stays readable. */
export function clip(text: string | undefined, max = 300): string {
  if (text === undefined) return "undefined";
  return text.length > max ? `${text.slice(0, max)}... (${text.length} chars)` : text;
}

/** A text as a JSON string, shortened as {@link clip} does, without encoding more of it than is shown. */
export function clipJson(text: string, max = 300): string {
  return text.length > max ? `${JSON.stringify(text.slice(0, max))}... (${text.length} chars)` : JSON.stringify(text);
}
