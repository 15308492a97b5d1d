// A POST's parsed body checked as the contract says, keeping only the task's two fields.
import { apiError } from "../errors.ts";
import type { NewTask } from "../list/task.ts";
import {
  COMPLETED_NOT_BOOLEAN,
  MISSING_FIELD,
  NOT_AN_OBJECT,
  TITLE_NOT_STRING,
  TITLE_NOT_WELL_FORMED,
} from "../messages.ts";

/** Checks a parsed POST body and keeps only `title` and `completed`; every other field is dropped. */
export function toNewTask(value: unknown): NewTask {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw apiError(400, NOT_AN_OBJECT);
  }
  const title = own(value, "title");
  const completed = own(value, "completed");
  if (title === undefined || title === null || completed === undefined || completed === null) {
    throw apiError(400, MISSING_FIELD);
  }
  checkTitle(title);
  if (typeof completed !== "boolean") throw apiError(400, COMPLETED_NOT_BOOLEAN);
  return { title, completed };
}

/**
 * Refuses a title that is not a string, or that holds an unpaired surrogate: JSON's `\ud800` escape
 * makes one, and it has no UTF-8 form, so no store or client could give it back as it was sent.
 */
export function checkTitle(title: unknown): asserts title is string {
  if (typeof title !== "string") throw apiError(400, TITLE_NOT_STRING);
  if (!title.isWellFormed()) throw apiError(400, TITLE_NOT_WELL_FORMED);
}

/** Reads only the object's own field, so names like `__proto__` or `toString` never reach the prototype. */
function own(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}
