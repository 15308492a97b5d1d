// What changed in a list held in memory after a change number, as a copy elsewhere asks for it:
// the one answer to "what changed since change N", for a Worker's copy of its Durable Object's list.
import type { ListEvent, ListVersion } from "../list/list-version.ts";
import type { ChangedRow, ListChanges } from "./mirror.ts";

const decoder = new TextDecoder();

/**
 * The changes of `version` after change `after` of list `instance`, stopping after the one that
 * brings their JSON to `maxBytes` or more: every change when the list's journal reaches back to
 * `after`, else each task's last change and each deletion remembered; from nothing when `instance`
 * is another list's, or `after` cannot be brought up to date.
 */
export function changesReply(
  version: ListVersion,
  instance: string,
  asked: string | undefined,
  after: number,
  maxBytes: number,
): ListChanges {
  const folded = version.eventsAfter(asked === instance ? after : 0);
  const followed = asked === instance && !folded.reset;
  const from = followed ? after : 0;
  // From the list's change 0 too: a copy of it made while it was empty must hear of each change.
  const every = followed ? version.changesAfter(from) : undefined;
  const rows: ChangedRow[] = [];
  let size = 0;
  let through = version.change;
  for (const event of every ?? folded.events) {
    rows.push(rowOf(event));
    size += event.json.byteLength + 1;
    if (size >= maxBytes) {
      through = event.change;
      break;
    }
  }
  const { change } = version;
  return {
    instance,
    change,
    highestId: version.highestId,
    forgotten: version.forgotten,
    after: from,
    through: rows.length === 0 ? change : through,
    journal: every !== undefined,
    rows,
  };
}

/** An event as a row: its task's JSON as text, none for a deletion. */
function rowOf({ id, change, created, event, json }: ListEvent): ChangedRow {
  return event === "delete" ? { id, change, created: 0 } : { id, change, created, json: decoder.decode(json) };
}

/** What a list that does not live answers a copy: nothing, so a Worker's copy of it holds nothing. */
export const NO_CHANGES = {
  instance: "",
  change: 0,
  highestId: 0,
  forgotten: 0,
  after: 0,
  through: 0,
  journal: false,
  rows: [],
} as const;
