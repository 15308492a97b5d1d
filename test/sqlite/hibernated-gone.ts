// A list deleted while its Durable Object is out of memory, its WebSocket subscribers held by workerd
// through the Hibernation API: each gets gone, and then its socket closes.
import { test } from "vitest";
import { createClient } from "../conformance/client.ts";
import { checkListGone } from "../conformance/list-gone.ts";
import type { RunningServer } from "../support/server.ts";

/**
 * How long nothing reaches the list before its deletion: longer than the 10 s workerd keeps an
 * object nothing reaches, after which the object leaves memory and its sockets stay open without it.
 */
const HIBERNATION_MS = 15_000;

/** Registers the check against the Durable Object server `server` gives. */
export function describeHibernatedGone(server: () => RunningServer): void {
  test("a WebSocket subscriber of a list whose object hibernated gets gone when the list is deleted, then its socket closes with 1000", async () => {
    const client = createClient({ baseUrl: server().baseUrl, fetch }, {});
    await checkListGone(client, { stream: false, socket: true, idleMs: HIBERNATION_MS });
  });
}
