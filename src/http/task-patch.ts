// What a write to one task sends beside its body: an If-Match naming the versions it was made
// against, and a PATCH's JSON merge patch (RFC 7396) of title and completed.
import type { IfMatch, TaskPatch } from "../engine/task-store.ts";
import { apiError } from "../errors.ts";
import { TASK_FIELDS } from "../list/task.ts";
import { NOT_A_PATCH, NOT_PATCH_TYPE } from "../messages.ts";

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

/** Checks a parsed merge patch and keeps only the task's fields that it holds; `id` and the rest are ignored. */
export function toTaskPatch(value: unknown): TaskPatch {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw apiError(400, NOT_A_PATCH);
  const patch: Record<string, unknown> = {};
  for (const field of TASK_FIELDS) {
    if (!Object.hasOwn(value, field.name)) continue;
    const given = (value as Record<string, unknown>)[field.name];
    const refusal = field.refusal(given);
    if (refusal !== undefined) throw apiError(400, refusal);
    patch[field.name] = given;
  }
  return patch as TaskPatch;
}
