import { expect, test, vi } from "vitest";
import { batchedLogSink, type LogSink, MAX_BATCH_LINES } from "../../src/http/request-log.ts";

function recordingSink() {
  const writes: { stream: "out" | "err"; text: string }[] = [];
  const sink: LogSink = {
    log: (text) => writes.push({ stream: "out", text }),
    error: (text) => writes.push({ stream: "err", text }),
  };
  return { sink, writes };
}

test("writes the lines of one turn as one multi-line write, after the turn", async () => {
  vi.useFakeTimers();
  try {
    const { sink, writes } = recordingSink();
    const batched = batchedLogSink(sink);
    batched.log('{"n":1}');
    batched.log('{"n":2}');
    expect(writes).toEqual([]);
    await vi.runAllTimersAsync();
    batched.log('{"n":3}');
    await vi.runAllTimersAsync();
    expect(writes).toEqual([
      { stream: "out", text: '{"n":1}\n{"n":2}' },
      { stream: "out", text: '{"n":3}' },
    ]);
  } finally {
    vi.useRealTimers();
  }
});

test("writes an error line at once, after the lines logged before it", () => {
  const { sink, writes } = recordingSink();
  const batched = batchedLogSink(sink);
  batched.log('{"n":1}');
  batched.error('{"n":2}');
  expect(writes).toEqual([
    { stream: "out", text: '{"n":1}' },
    { stream: "err", text: '{"n":2}' },
  ]);
});

test("flush writes what it holds now, and nothing when it holds nothing", () => {
  const { sink, writes } = recordingSink();
  const batched = batchedLogSink(sink);
  batched.flush();
  batched.log('{"n":1}');
  batched.flush();
  batched.flush();
  expect(writes).toEqual([{ stream: "out", text: '{"n":1}' }]);
});

test("writes a full batch at once, without waiting for the timer", () => {
  const { sink, writes } = recordingSink();
  const batched = batchedLogSink(sink);
  const lines = Array.from({ length: MAX_BATCH_LINES + 1 }, (_, n) => `{"n":${n}}`);
  for (const line of lines) batched.log(line);
  expect(writes).toEqual([{ stream: "out", text: lines.slice(0, MAX_BATCH_LINES).join("\n") }]);
});
