// What the feed scenario's harness and its client process of catching-up subscribers (feed-client.ts)
// tell each other.

/** How a subscriber follows the list: an event stream, or a WebSocket. */
export type Transport = "sse" | "ws";

/** What the harness asks of a client process. */
export type FeedOrder =
  /**
   * Catch up from 0 with `parallel` subscribers at once, each reading until the event of change
   * `last` has come, then leaving; a subscriber that is done is replaced by a new one until `count`
   * catch-ups are done, or, with `count` 0, until the harness sends "stop".
   */
  | {
      readonly type: "catch-up";
      readonly port: number;
      readonly transport: Transport;
      readonly parallel: number;
      readonly count: number;
      readonly last: number;
    }
  /** Close every catching-up subscriber and report what they did. */
  | { readonly type: "stop" };

/** What a client process tells the harness. */
export type FeedReport =
  | { readonly type: "failed"; readonly message: string }
  /** Catch-ups completed, and the bytes each received, on average. */
  | { readonly type: "caught-up"; readonly completed: number; readonly bytesEach: number };
