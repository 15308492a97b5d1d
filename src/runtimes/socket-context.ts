// Hono's view of a standard WebSocket (Deno's, and the server end of a Workers pair), so that the
// runtime's upgrade hands the subscriber feed the same object on both.
import { WSContext } from "hono/ws";

/** A {@link WSContext} over `socket`, a WebSocket upgraded from the request at `url`. */
export function socketContext(socket: WebSocket, url: string): WSContext<WebSocket> {
  return new WSContext<WebSocket>({
    send: (data) => socket.send(data),
    close: (code, reason) => socket.close(code, reason),
    raw: socket,
    get readyState() {
      return socket.readyState as 0 | 1 | 2 | 3;
    },
    url,
    protocol: null,
  });
}
