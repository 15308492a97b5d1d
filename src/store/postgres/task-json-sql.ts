// A task's JSON as PostgreSQL builds it from a row of a tasks table, byte for byte what `taskJson`
// makes. The store keeps a title as its JSON string literal (`JSON.stringify` of it), so the form
// escapes nothing.
import { COMPLETED_KEY, ID_KEY, JSON_END, TITLE_KEY } from "../../list/task.ts";

/** The SQL expressions a task's JSON is built from: its id, its title's JSON and its completed. */
export interface TaskColumns {
  readonly id: string;
  readonly titleJson: string;
  readonly completed: string;
}

/** The columns of the tasks table, unqualified. */
const TASK_COLUMNS: TaskColumns = { id: "id", titleJson: "title_json", completed: "completed" };

/** A task's JSON in PostgreSQL, where `completed` is a boolean. */
export function postgresTaskJson({ id, titleJson, completed }: TaskColumns = TASK_COLUMNS): string {
  return `'${ID_KEY}' || ${id}::text || '${TITLE_KEY}' || ${titleJson} || '${COMPLETED_KEY}' || ${completed}::text || '${JSON_END}'`;
}
