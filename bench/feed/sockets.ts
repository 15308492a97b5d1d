// The loopback connections of a server's port as the kernel sees them (/proc/net/tcp): how many are
// open, and the bytes waiting in their queues, which show that stalled subscribers are stalled.
import { readFileSync } from "node:fs";

/** Established connections to a server's port, and the bytes the kernel holds for them. */
export interface PortQueues {
  /** Connections the server still holds open. */
  readonly connections: number;
  /** Bytes written by the server and not yet read by the clients: its send queues and their receive queues. */
  readonly heldBytes: number;
}

/** The kernel's state of "established", as /proc/net/tcp writes it. */
const ESTABLISHED = "01";

/**
 * Reads the established IPv4 connections of `port`, on the server's side and on its clients', or
 * only those of clients whose local port is one of `clients`.
 */
export function portQueues(port: number, clients?: ReadonlySet<number>): PortQueues {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  let connections = 0;
  let heldBytes = 0;
  for (const line of readFileSync("/proc/net/tcp", "utf8").split("\n").slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue ...
    const [, local, remote, state, queues] = line.trim().split(/\s+/);
    if (state !== ESTABLISHED || local === undefined || remote === undefined || queues === undefined) continue;
    const [tx = "0", rx = "0"] = queues.split(":");
    const ours = (address: string) => clients === undefined || clients.has(Number.parseInt(address.slice(-4), 16));
    if (local.endsWith(`:${hexPort}`) && ours(remote)) {
      connections += 1;
      heldBytes += Number.parseInt(tx, 16);
    } else if (remote.endsWith(`:${hexPort}`) && ours(local)) {
      heldBytes += Number.parseInt(rx, 16);
    }
  }
  return { connections, heldBytes };
}
