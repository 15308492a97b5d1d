// The home page's script: the service's addresses, its token and how the page sends it requests.
// @ts-check
import { markLink, writable } from "./access.js";
import { byId } from "./dom.js";

// The page is the base path with or without its trailing slash, the default list's page, or a named
// list's page, `lists/<name>/` under it; the list's API sits under the page, the rest under the base.
const base = location.pathname.endsWith("/") ? location.pathname : `${location.pathname}/`;
const LIST_PAGE = /^(.*\/)lists\/([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)\/$/.exec(base);
const root = LIST_PAGE?.[1] ?? base;
/** The name of the list this page shows. */
export const listName = LIST_PAGE?.[2] ?? "default";
export const tasksUrl = `${base}tasks`;
export const eventsUrl = `${base}tasks/events`;
export const listsUrl = `${root}lists`;
export const openApiUrl = `${root}openapi.json`;
/** The list itself, as /lists names it: its title, renamed and deleted there. */
export const listUrl = `${root}lists/${listName}`;
export const workerUrl = `${root}service-worker.js`;
// The base path itself, so that the page at the base path without its trailing slash is in it too.
export const workerScope = root === "/" ? root : root.slice(0, -1);

/**
 * The page of a list: the base path itself for the default list.
 * @param {string} name
 */
export function pageOf(name) {
  return name === "default" ? root : `${root}lists/${name}/`;
}
const TOKEN_KEY = "task-list-token";
// What the service takes as a bearer token (RFC 6750's token68); anything else cannot be sent.
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;

// A kept token fetch cannot send (one with a character outside Latin-1) stops the request here.
export class BadToken extends Error {}

/** @param {string} token */
export function isToken(token) {
  return TOKEN.test(token);
}

/**
 * Keeps a token for this tab only, until it is closed.
 * @param {string} token
 * @param {boolean} [link] whether it is a list key a share link gave
 */
export function keepToken(token, link = false) {
  sessionStorage.setItem(TOKEN_KEY, token);
  markLink(link);
  tokenChanged();
}

export function dropToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  markLink(false);
  tokenChanged();
}

/** Whether the page holds a token to send. */
export function hasToken() {
  return keptToken() !== null;
}

/** The token the page holds, as kept; null for none. */
export function keptToken() {
  return sessionStorage.getItem(TOKEN_KEY);
}

// What one token may do says nothing of the next: its controls are on until the service says otherwise.
function tokenChanged() {
  writable();
  byId("token-tools", HTMLDivElement).hidden = !hasToken();
}

/**
 * @param {Record<string, string>} headers
 * @returns {Record<string, string>}
 */
function withToken(headers) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token === null) return headers;
  if (!TOKEN.test(token)) throw new BadToken();
  return { ...headers, Authorization: `Bearer ${token}` };
}

/**
 * A request to the service, with the kept token if there is one. The page sends If-None-Match
 * itself, and no-store keeps the browser's cache from answering for the server.
 * @param {string} url
 * @param {RequestInit & { headers?: Record<string, string> }} [init]
 */
export function send(url, init = {}) {
  return fetch(url, { ...init, cache: "no-store", headers: withToken(init.headers ?? {}) });
}

/**
 * A request that reads or writes tasks: as `send`, but a 503 (the service's store cannot be
 * reached, or it is stopping) throws as a network error does, so that a write waits in the outbox
 * rather than being given up.
 * @param {string} url
 * @param {RequestInit & { headers?: Record<string, string> }} [init]
 */
export async function sendTask(url, init = {}) {
  const res = await send(url, init);
  if (res.status === 503) throw new Error(await messageOf(res));
  return res;
}

/**
 * Errors are {"message"} by the contract; anything else (a proxy's error page) is named by its status.
 * @param {Response} res
 * @returns {Promise<string>}
 */
export async function messageOf(res) {
  try {
    const body = await res.json();
    if (typeof body.message === "string") return body.message;
  } catch {}
  return `The service answered ${res.status}`;
}

// A key of 32 hex digits from the browser's random source, which pages over plain HTTP have too.
export function newKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
