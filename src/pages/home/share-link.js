// The home page's script: a share link's key, taken from the address the page was opened at.
// @ts-check
import { READ_LINK, readOnly } from "./access.js";
import { isToken, keepToken, sendTask, tasksUrl } from "./service.js";
import { showTokenForm } from "./token.js";

const KEY_FRAGMENT = /^#key=(.*)$/;

/**
 * Keeps the key of a link `…/lists/<name>/#key=<key>` for this tab, as a token given in the form is
 * kept, and takes it out of the address at once, so that no history entry or bookmark holds it.
 * @returns {boolean} whether the page was opened with a key to use
 */
export function takeLinkKey() {
  const fragment = KEY_FRAGMENT.exec(location.hash);
  if (fragment === null) return false;
  history.replaceState(history.state, "", `${location.pathname}${location.search}`);
  const key = decodeURIComponent(fragment[1] ?? "");
  if (!isToken(key)) {
    showTokenForm("This link is not whole: open all of it, #key= and what follows, or give a token");
    return false;
  }
  keepToken(key, true);
  return true;
}

/**
 * Learns whether a link's key may write before the person tries, so that a read link shows its
 * controls off from the start. The service checks a key before it reads a body: an add with no
 * body is refused with 403 for a read key, and with 400 for one that may write, adding nothing.
 */
export async function learnLinkAccess() {
  try {
    const res = await sendTask(tasksUrl, { method: "POST", headers: { "Content-Type": "application/json" } });
    // A 401 is left to the list's own read, which says the link no longer opens it.
    if (res.status === 403) readOnly(READ_LINK);
  } catch {
    // Out of reach: the first write tells, as for any token.
  }
}
