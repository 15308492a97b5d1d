// The home page's script: how a task's title is shown, its start only when it is very long.
// @ts-check

// A title may be a megabyte. Laid out, or named in each control's label, it takes the browser
// seconds every time its row is drawn; its start says which task it is, and the rest is one
// button away. Past LONG_TITLE characters, a title shows its first SHOWN_OF_LONG.
const LONG_TITLE = 300;
const SHOWN_OF_LONG = 250;

/**
 * The title as the page shows and names it: a long one's start, with an ellipsis.
 * @param {string} title
 */
export function shortTitle(title) {
  if (title.length <= LONG_TITLE) return title;
  // A character outside the BMP is two code units: the cut goes before it, not through it.
  const high = title.charCodeAt(SHOWN_OF_LONG - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? SHOWN_OF_LONG - 1 : SHOWN_OF_LONG;
  return `${title.slice(0, end)}…`;
}
