// A list's name and title as the contract rules them: a name is a DNS label, a title a short
// string; and the random names a POST to /lists gives.

/** The list the specification describes, at /tasks: it always exists and cannot be deleted. */
export const DEFAULT_LIST = "default";
/** The default list's title while nobody has changed it. */
export const DEFAULT_TITLE = "Tasks";
/** Characters (code points) a list's title may have at most. */
export const MAX_TITLE_LENGTH = 200;
/** Characters of a name a POST to /lists gives: 26 of base32, 130 bits of randomness. */
export const RANDOM_NAME_LENGTH = 26;

/** A list's name in a path, as a Hono parameter pattern: a DNS label. */
export const NAME_PATTERN = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const NAME = new RegExp(`^${NAME_PATTERN}$`);
/** RFC 4648's base32 alphabet in lower case: every character is allowed in a name. */
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Whether `name` is a list's name: 1 to 63 of a-z, 0-9 and -, starting and ending with a letter or digit. */
export function isListName(name: string): boolean {
  return NAME.test(name);
}

/** Whether `title` may be a list's title: a well-formed string of at most {@link MAX_TITLE_LENGTH} characters. */
export function isListTitle(title: unknown): title is string {
  if (typeof title !== "string" || !title.isWellFormed()) return false;
  // Most titles are short: only one that could be too long is counted by code point.
  if (title.length <= MAX_TITLE_LENGTH) return true;
  let count = 0;
  for (const _ of title) if (++count > MAX_TITLE_LENGTH) return false;
  return true;
}

/**
 * A new unguessable name: {@link RANDOM_NAME_LENGTH} characters of base32, each five bits of a
 * random byte (256 is a multiple of 32, so each is uniform), 130 bits in all.
 */
export function randomListName(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_NAME_LENGTH));
  let name = "";
  for (const byte of bytes) name += BASE32[byte & 31];
  return name;
}
