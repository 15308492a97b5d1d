// What a write to one task sends beside its body: an If-Match naming the versions it was made
// against, and a PATCH's JSON merge patch (RFC 7396) of title and completed.
import type { IfMatch, TaskPatch } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { COMPLETED_NOT_BOOLEAN, NOT_A_PATCH, NOT_PATCH_TYPE } from "../messages.ts";
import { checkTitle } from "./new-task.ts";

const PATCH_TYPES = new Set(["application/merge-patch+json", "application/json"]);

/**
 * The versions an If-Match names, unquoted, or undefined when there is none or it is `*` (any
 * current task). Comparison is strong (RFC 9110 §13.1.1): a weak tag, or anything but a quoted
 * tag, matches no version.
 */
export function ifMatchOf(header: string | undefined): IfMatch {
  if (header === undefined || header.trim() === "*") return undefined;
  const versions: string[] = [];
  for (const entry of header.split(",")) {
    const tag = entry.trim();
    if (tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"')) versions.push(tag.slice(1, -1));
  }
  return versions;
}

/** Refuses a PATCH whose Content-Type is neither a merge patch nor JSON; a missing one is read as JSON. */
export function requireMergePatchType(contentType: string | undefined): void {
  if (contentType === undefined) return;
  const mediaType = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  if (!PATCH_TYPES.has(mediaType)) {
    throw apiError(415, NOT_PATCH_TYPE, { "Accept-Patch": "application/merge-patch+json" });
  }
}

/** Checks a parsed merge patch and keeps only `title` and `completed`, where present; `id` and the rest are ignored. */
export function toTaskPatch(value: unknown): TaskPatch {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw apiError(400, NOT_A_PATCH);
  const patch: { title?: string; completed?: boolean } = {};
  if (Object.hasOwn(value, "title")) {
    const title = (value as { title: unknown }).title;
    checkTitle(title);
    patch.title = title;
  }
  if (Object.hasOwn(value, "completed")) {
    const completed = (value as { completed: unknown }).completed;
    if (typeof completed !== "boolean") throw apiError(400, COMPLETED_NOT_BOOLEAN);
    patch.completed = completed;
  }
  return patch;
}
