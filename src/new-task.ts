import { apiError, MISSING_FIELD_MESSAGE } from "./errors.ts";
import type { NewTask } from "./store/store.ts";

/** Checks a parsed POST body and keeps only `title` and `completed`; every other field is dropped. */
export function toNewTask(value: unknown): NewTask {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw apiError(400, "Request body must be a JSON object with title and completed");
  }
  const title = own(value, "title");
  const completed = own(value, "completed");
  if (title === undefined || title === null || completed === undefined || completed === null) {
    throw apiError(400, MISSING_FIELD_MESSAGE);
  }
  if (typeof title !== "string") throw apiError(400, "title must be a string");
  if (typeof completed !== "boolean") throw apiError(400, "completed must be a boolean (true or false)");
  return { title, completed };
}

/** Reads only the object's own field, so names like `__proto__` or `toString` never reach the prototype. */
function own(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}
