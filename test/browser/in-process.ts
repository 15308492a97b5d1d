import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll } from "vitest";

/**
 * Serves `fetch` on 127.0.0.1 and a free port from this process for the enclosing describe, for
 * tests that need a server the real entries cannot be made into. Returns the server's base URL,
 * and a way to drop every open connection, as a server process that restarts does.
 */
export function useInProcessServer(fetch: (request: Request) => Response | Promise<Response>): {
  baseUrl: () => string;
  dropConnections: () => void;
} {
  let server: ServerType | undefined;
  let baseUrl = "";
  beforeAll(async () => {
    await new Promise<void>((listening) => {
      server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) => {
        baseUrl = `http://127.0.0.1:${info.port}`;
        listening();
      });
    });
  });
  afterAll(async () => {
    await new Promise((closed) => server?.close(closed));
  });
  return {
    baseUrl: () => baseUrl,
    dropConnections: () => (server as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.(),
  };
}
