// The request log of the Deno entries: batched lines written straight to stdout and stderr.
import { type BatchedLogSink, batchedLogSink } from "../http/request-log.ts";

const encoder = new TextEncoder();
/** Writes all of `text` and a newline; Deno's `console` costs tens of MiB of heap under load. */
const writeLine = (stream: typeof Deno.stdout) => (text: string) => {
  const bytes = encoder.encode(`${text}\n`);
  for (let written = 0; written < bytes.byteLength; ) written += stream.writeSync(bytes.subarray(written));
};

/** The log sink both Deno entries use; flush it before the process exits. */
export const denoLogSink: BatchedLogSink = batchedLogSink({
  log: writeLine(Deno.stdout),
  error: writeLine(Deno.stderr),
});
