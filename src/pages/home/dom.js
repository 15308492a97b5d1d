// The home page's script: finding the elements of its markup and showing messages in them.
// @ts-check

/**
 * The element of index.html with this id, which must be of this type.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
export function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new TypeError(`The page has no element ${id} of the type its script needs`);
  return element;
}

/**
 * Shows a message in an element, or hides the element when there is none.
 * @param {HTMLElement} element
 * @param {string} text
 */
export function say(element, text) {
  element.textContent = text;
  element.hidden = text === "";
}
