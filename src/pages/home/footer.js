// The home page's script: the list's footer (items left, the filters, Clear completed) and Mark all.
// @ts-check
import { byId } from "./dom.js";

const footer = byId("list-footer", HTMLDivElement);
const count = byId("count", HTMLSpanElement);
const clearCompleted = byId("clear-completed", HTMLButtonElement);
const toggleAll = byId("toggle-all", HTMLInputElement);
// The list's tasks and the adds that wait both follow the filter.
const lists = [byId("tasks", HTMLUListElement), byId("queued", HTMLUListElement)];
/** The filters, by the hash of their links: the list's style hides what a filter leaves out. */
const FILTERS = new Map([
  ["#/", "all"],
  ["#/active", "active"],
  ["#/completed", "completed"],
]);

/**
 * Shows how many tasks are left to do, Mark all's state and whether there is anything to clear.
 * @param {number} total the tasks a person may act on, the adds that wait included
 * @param {number} completed those of them done
 */
export function showTotals(total, completed) {
  const left = total - completed;
  const text = left === 1 ? "1 item left" : `${left} items left`;
  if (count.textContent !== text) count.textContent = text;
  footer.hidden = total === 0;
  toggleAll.hidden = total === 0;
  toggleAll.checked = total > 0 && total === completed;
  clearCompleted.hidden = completed === 0;
}

/** Shows the tasks the address's hash asks for, now and each time it changes; the address keeps it across reloads. */
export function followFilter() {
  const show = () => {
    const filter = FILTERS.has(location.hash) ? location.hash : "#/";
    for (const list of lists) list.dataset.filter = FILTERS.get(filter);
    for (const link of footer.querySelectorAll(".filters a")) {
      if (link.getAttribute("href") === filter) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
  };
  addEventListener("hashchange", show);
  show();
}
