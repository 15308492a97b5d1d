import { expect } from "vitest";
import type { RunningServer } from "../support/server.ts";

/** How long one request of a fault case may take before it counts as hung. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A request over fetch, bounded in time so that a hung server fails the test with a reason. */
export function send(server: RunningServer, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${server.baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}

/** The list's exact bytes as a plain GET returns them. */
export async function listText(server: RunningServer): Promise<string> {
  const res = await send(server, "/tasks");
  expect(res.status).toBe(200);
  return res.text();
}

/** POSTs a task and returns the response's status and body. */
export async function postTask(server: RunningServer, title: string): Promise<{ status: number; text: string }> {
  const res = await send(server, "/tasks", {
    method: "POST",
    body: JSON.stringify({ title, completed: false }),
    headers: { "Content-Type": "application/json" },
  });
  return { status: res.status, text: await res.text() };
}

/** The list text `before` with `task` (a task's exact JSON) appended. */
export function appended(before: string, task: string): string {
  return before === "[]" ? `[${task}]` : `${before.slice(0, -1)},${task}]`;
}

/** Checks that `body` is exactly `{"message": "<a string>"}`. */
export function expectMessageBody(body: string): void {
  const parsed: unknown = JSON.parse(body);
  expect(typeof parsed === "object" && parsed !== null ? Object.keys(parsed) : parsed).toEqual(["message"]);
  expect(typeof (parsed as { message: unknown }).message).toBe("string");
}

/** The head of a raw HTTP/1.1 request, up to and including the blank line. */
export function requestHead(method: string, path: string, headers: Readonly<Record<string, string>>): string {
  const lines = Object.entries({ Host: "127.0.0.1", ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`;
}
