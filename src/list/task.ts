// A task as the list holds it, and its JSON exactly as every response and event carries it: the one
// place that knows that JSON's layout, its keys, their order and where each value sits, and the
// table of its fields that the body checks, the OpenAPI schemas and the Idempotency-Key read.
import { COMPLETED_NOT_BOOLEAN, TITLE_NOT_STRING, TITLE_NOT_WELL_FORMED } from "../messages.ts";

/** What a client sends to create a task. */
export interface NewTask {
  readonly title: string;
  readonly completed: boolean;
}

/** A task as the list holds it. */
export interface Task extends NewTask {
  readonly id: number;
}

/** A field of a task beside its id, as the body checks and the OpenAPI document take it. */
export interface TaskField {
  readonly name: keyof NewTask;
  /**
   * The field's column in every database's tasks table: a string kept as its JSON literal, so that
   * a row gives the task's JSON unparsed; a boolean as the database's own.
   */
  readonly column: string;
  /** Why a value a body gives cannot be this field's, as the 400 says; undefined when it can. */
  readonly refusal: (value: unknown) => string | undefined;
  /** The field's schema in the OpenAPI document. */
  readonly schema: Readonly<Record<string, unknown>>;
}

/**
 * A title is a string without an unpaired surrogate: JSON's `\ud800` escape makes one, and it has no
 * UTF-8 form, so no store or client could give it back as it was sent.
 */
export const TITLE_FIELD: TaskField = {
  name: "title",
  column: "title_json",
  refusal: (value) => {
    if (typeof value !== "string") return TITLE_NOT_STRING;
    return value.isWellFormed() ? undefined : TITLE_NOT_WELL_FORMED;
  },
  schema: {
    type: "string",
    description: "Well-formed Unicode: a lone half of a surrogate pair, such as JSON's \\ud800 escape, gets 400",
  },
};

const COMPLETED_FIELD: TaskField = {
  name: "completed",
  column: "completed",
  refusal: (value) => (typeof value === "boolean" ? undefined : COMPLETED_NOT_BOOLEAN),
  schema: { type: "boolean" },
};

/** A task's fields beside its id, in the order its JSON gives them and the body checks take them. */
export const TASK_FIELDS: readonly TaskField[] = [TITLE_FIELD, COMPLETED_FIELD];

/** The fields' columns, in the table's order, as every database's tasks table names them: `title_json, completed`. */
export const FIELD_COLUMNS = TASK_FIELDS.map((field) => field.column).join(", ");

/**
 * Whether `value` holds a task's fields, each of its type, and nothing else: what a store checks of
 * a task that came from elsewhere (another version's Worker), not the body checks a request meets.
 * A field's schema type ("string", "boolean") is the name JavaScript's `typeof` gives its value.
 */
export function isNewTask(value: unknown): value is NewTask {
  return hasOnlyFields(value) && TASK_FIELDS.every((field) => typeof value[field.name] === field.schema.type);
}

/** Whether `value` holds some of a task's fields, each of its type or undefined (left as it is), and nothing else. */
export function isTaskPatch(value: unknown): value is Partial<NewTask> {
  return (
    hasOnlyFields(value) &&
    TASK_FIELDS.every((field) => value[field.name] === undefined || typeof value[field.name] === field.schema.type)
  );
}

function hasOnlyFields(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || ArrayBuffer.isView(value)) return false;
  return Object.keys(value).every((key) => TASK_FIELDS.some((field) => field.name === key));
}

/** The tasks every new list starts with. */
export const INITIAL_TASKS: readonly Task[] = [
  { id: 1, title: "Read the task list specification", completed: true },
  { id: 2, title: "Build the task list service", completed: false },
];

/** A field's key in a task's JSON, with the comma before it: `,"title":`. */
export function keyOf(field: TaskField): string {
  return `,${JSON.stringify(field.name)}:`;
}

/** A task's JSON is its id's key and value, each field's key and value in the table's order, then {@link JSON_END}. */
export const ID_KEY = '{"id":';
export const JSON_END = "}";
const TITLE_KEY = keyOf(TITLE_FIELD);
const COMPLETED_KEY = keyOf(COMPLETED_FIELD);

/** Each field's value as JSON text, by the field's name: a title as its JSON string literal, `true`. */
export type FieldsJson = Readonly<Record<keyof NewTask, string>>;

/** Each field's key in a task's JSON, with the comma before it, and its name, in the table's order. */
const FIELD_KEYS = TASK_FIELDS.map((field) => ({ key: keyOf(field), name: field.name }));

/**
 * A task's JSON from its id and each field's value already as JSON, its keys in the table's order:
 * the stores keep a title as its JSON string literal, so a task read from a row is never parsed to be written.
 */
export function taskJsonOf(id: number, fields: FieldsJson): string {
  let json = `${ID_KEY}${id}`;
  for (const { key, name } of FIELD_KEYS) json += `${key}${fields[name]}`;
  return `${json}${JSON_END}`;
}

/** Encodes a task as JSON with its keys always in the order id, then the table's. */
export function taskJson(task: Task): string {
  let json = `${ID_KEY}${task.id}`;
  for (const { key, name } of FIELD_KEYS) {
    const value = task[name];
    // A boolean's JSON is its text, which String makes faster than JSON.stringify.
    json += `${key}${typeof value === "string" ? JSON.stringify(value) : String(value)}`;
  }
  return `${json}${JSON_END}`;
}

/** What the journal and the feed carry for a deleted task: its id alone. */
export function deletedTaskJson(id: number): string {
  return `${ID_KEY}${id}${JSON_END}`;
}

/** The id of the task whose JSON is `bytes`: the digits after `{"id":`. */
export function readId(bytes: Uint8Array): number {
  let id = 0;
  for (let at = ID_KEY.length; at < bytes.byteLength; at++) {
    const digit = (bytes[at] ?? 0) - 0x30;
    if (digit < 0 || digit > 9) break;
    id = id * 10 + digit;
  }
  return id;
}

/** After the title's JSON string, a task's JSON ends with one of these. */
const TRUE_END = `${COMPLETED_KEY}true${JSON_END}`.length;
const FALSE_END = `${COMPLETED_KEY}false${JSON_END}`.length;

/** The bytes of the title's JSON string in the JSON of the task `id`, whose completed is `completed`. */
export function titleJsonIn(json: Uint8Array, id: number, completed: boolean): Uint8Array {
  const start = ID_KEY.length + String(id).length + TITLE_KEY.length;
  return json.subarray(start, json.byteLength - (completed ? TRUE_END : FALSE_END));
}

/** The third byte from the end of a task's JSON: `u` of `true}`, else `s` of `false}`. */
const TRUE_U = 0x75;

/** 1 when the task whose JSON ends at `end` in `bytes` is completed, else 0: one byte tells, unparsed. */
export function completedAt(bytes: Uint8Array, end: number): number {
  return bytes[end - 3] === TRUE_U ? 1 : 0;
}
