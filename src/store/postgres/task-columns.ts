// A task's fields as PostgreSQL's tasks and journal tables keep them, made from the field table: a
// string as its JSON literal (`JSON.stringify` of it), a boolean as a boolean; and the task's JSON as
// PostgreSQL builds it from such a row, byte for byte what `taskJson` makes, escaping nothing.
import { ID_KEY, JSON_END, keyOf, type NewTask, TASK_FIELDS, type TaskField } from "../../list/task.ts";

/** A field's column in a row of `table` (`j.`, or none), as JSON text. */
function columnJson(field: TaskField, table: string): string {
  return field.schema.type === "boolean" ? `${table}${field.column}::text` : `${table}${field.column}`;
}

/** A task's JSON from a row of a tasks table, or of the one named `table` (`j.`). */
export function postgresTaskJson(table = ""): string {
  const fields = TASK_FIELDS.map((field) => `'${keyOf(field)}' || ${columnJson(field, table)}`);
  return `'${ID_KEY}' || ${table}id::text || ${fields.join(" || ")} || '${JSON_END}'`;
}

/** The name of a field's new value among a function's parameters: `new_title_json`. */
export function newValue(field: TaskField): string {
  return `new_${field.column}`;
}

/** A function's parameters for each field's new value, with their types. */
export const NEW_VALUE_PARAMETERS = TASK_FIELDS.map(
  (field) => `${newValue(field)} ${field.schema.type === "boolean" ? "boolean" : "text"}`,
).join(", ");

/** A deletion's values for the fields: none. */
export const NO_FIELD_VALUES: readonly null[] = TASK_FIELDS.map(() => null);

/** A task's fields as the tables keep them, in the table's order. */
export function fieldValues(task: NewTask): (string | boolean)[] {
  return TASK_FIELDS.map((field) => {
    const value = task[field.name];
    return typeof value === "boolean" ? value : JSON.stringify(value);
  });
}
