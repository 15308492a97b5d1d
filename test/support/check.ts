// The checks the black-box suite makes without a test runner, so it runs as a command too.
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

/** A task as the service shows it. */
export interface Task {
  readonly id: number;
  readonly title: string;
  readonly completed: boolean;
}

/** Checks that `value` is a task: exactly `id`, `title`, `completed`, in that order, with their types. */
export function checkTask(value: unknown, what: string): asserts value is Task {
  check(typeof value === "object" && value !== null && !Array.isArray(value), `${what} must be a JSON object`);
  checkEqual(Object.keys(value), ["id", "title", "completed"], `keys of ${what}`);
  const task = value as Record<string, unknown>;
  check(Number.isSafeInteger(task.id), () => `${what} must have an integer id, got ${clip(JSON.stringify(task.id))}`);
  check(
    typeof task.title === "string",
    () => `${what} must have a string title, got ${clip(JSON.stringify(task.title))}`,
  );
  check(typeof task.completed === "boolean", `${what} must have a boolean completed`);
}
