// What a write to a list sends: its title in a JSON object, and the preconditions of its headers.
import { apiError } from "../errors.ts";
import type { ListIfMatch } from "../list/list-directory.ts";
import { isListTitle } from "../list/list-names.ts";
import { LIST_TITLE, NOT_A_LIST, TITLE_NOT_WELL_FORMED } from "../messages.ts";
import { ifMatchOf } from "./task-patch.ts";

/**
 * The title of a parsed POST or PUT body (`required`) or merge patch (undefined when absent): a
 * string of at most 200 characters, anything else 400 naming title. Other members are ignored.
 */
export function toListTitle(value: unknown, required: true): string;
export function toListTitle(value: unknown, required: false): string | undefined;
export function toListTitle(value: unknown, required: boolean): string | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw apiError(400, NOT_A_LIST);
  if (!Object.hasOwn(value, "title")) {
    if (required) throw apiError(400, LIST_TITLE);
    return undefined;
  }
  const title = (value as { title: unknown }).title;
  if (typeof title === "string" && !title.isWellFormed()) throw apiError(400, TITLE_NOT_WELL_FORMED);
  if (!isListTitle(title)) throw apiError(400, LIST_TITLE);
  return title;
}

/** The versions an `If-Match` names, `"any"` for `*`, undefined without one. */
export function listIfMatchOf(header: string | undefined): ListIfMatch {
  if (header === undefined) return undefined;
  if (header.trim() === "*") return "any";
  return ifMatchOf(header);
}

/** Whether an `If-None-Match` is `*`: the write may only create. */
export function createOnly(header: string | undefined): boolean {
  return header?.trim() === "*";
}
