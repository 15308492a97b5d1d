// A task's fields as SQLite's tasks tables keep them, made from the field table: a string as its
// JSON literal, so that a row gives the task's JSON unparsed, and a boolean as 1 or 0.
import { type FieldsJson, type NewTask, TASK_FIELDS } from "../../list/task.ts";

/** A placeholder for each field's column, for an INSERT's values. */
export const FIELD_PLACEHOLDERS = TASK_FIELDS.map(() => "?").join(", ");

/** Every field's column set to a placeholder, for an UPDATE. */
export const FIELD_SETTINGS = TASK_FIELDS.map((field) => `${field.column} = ?`).join(", ");

/** A task's fields as the table keeps them, in the table's order. */
export function fieldValues(task: NewTask): (string | number)[] {
  return TASK_FIELDS.map((field) => {
    const value = task[field.name];
    return typeof value === "boolean" ? Number(value) : JSON.stringify(value);
  });
}

/** Each field's value as JSON, from a row holding every field's column. */
export function fieldsJson(row: Readonly<Record<string, unknown>>): FieldsJson {
  const fields: Record<string, string> = {};
  for (const field of TASK_FIELDS) {
    const value = row[field.column];
    fields[field.name] = field.schema.type === "boolean" ? String(value === 1) : String(value);
  }
  return fields as FieldsJson;
}
