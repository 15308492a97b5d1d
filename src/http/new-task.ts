// A POST's or PUT's parsed body checked as the contract says, keeping only the task's fields.
import { apiError } from "../errors.ts";
import { type NewTask, TASK_FIELDS } from "../list/task.ts";
import { MISSING_FIELD, NOT_AN_OBJECT } from "../messages.ts";

/**
 * Checks a parsed body and keeps only the task's fields ({@link TASK_FIELDS}); every other field is
 * dropped. A field missing or null is named first, then each field's own check, in their order.
 */
export function toNewTask(value: unknown): NewTask {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw apiError(400, NOT_AN_OBJECT);
  }
  // Plain loops: this runs for every POST, where a callback per field costs more than the checks.
  const task: Record<string, unknown> = {};
  for (const field of TASK_FIELDS) {
    const given = own(value, field.name);
    if (given === undefined || given === null) throw apiError(400, MISSING_FIELD);
    task[field.name] = given;
  }
  for (const field of TASK_FIELDS) {
    const refusal = field.refusal(task[field.name]);
    if (refusal !== undefined) throw apiError(400, refusal);
  }
  return task as unknown as NewTask;
}

/** Reads only the object's own field, so names like `__proto__` or `toString` never reach the prototype. */
function own(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}
