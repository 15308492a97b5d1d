// The home page's script: the form that asks for an access token when the service wants one.
// @ts-check
import { byId, say } from "./dom.js";
import { hasToken, isToken, keepToken } from "./service.js";

const tokenForm = byId("token-form", HTMLFormElement);
const tokenInput = byId("token", HTMLInputElement);
const tokenMessage = byId("token-message", HTMLParagraphElement);

/** Whether the page waits for a token, and so reads nothing meanwhile. */
export function waitingForToken() {
  return !tokenForm.hidden;
}

/**
 * Shows the form, with why the page needs a token.
 * @param {string} message
 */
export function showTokenForm(message) {
  say(tokenMessage, message);
  tokenForm.hidden = false;
  tokenInput.focus();
}

/**
 * Keeps each token given in the form, once it is one a request can carry, then calls `then`.
 * @param {() => void} then
 */
export function takeTokens(then) {
  tokenForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = tokenInput.value.trim();
    if (!isToken(token)) {
      say(tokenMessage, "A token is letters, digits and -._~+/, with = only at its end: check what you pasted");
      tokenInput.focus();
      return;
    }
    keepToken(token);
    tokenForm.reset();
    tokenForm.hidden = true;
    then();
  });
}

/**
 * The buttons that change or forget the kept token, shown while there is one.
 * @param {{ change: () => void, forget: () => void }} actions
 */
export function tokenTools({ change, forget }) {
  byId("token-tools", HTMLDivElement).hidden = !hasToken();
  byId("change-token", HTMLButtonElement).addEventListener("click", change);
  byId("forget-token", HTMLButtonElement).addEventListener("click", forget);
}
