// The rules that only time ends are the contract's lengths unless TIME_SCALE shortens them, as the
// tests of real servers do: each length scaled, and the app keeping to the scaled ones.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { parseAppConfig } from "../../src/config.ts";
import { bodyStalled } from "../../src/messages.ts";
import { timeRules } from "../../src/time-rules.ts";
import { appFrom, expectJsonError, snapshot, utf8 } from "./helpers.ts";

const decoder = new TextDecoder();

describe("the time rules", () => {
  test("are the contract's without TIME_SCALE: pings 20 s apart, a keep-alive comment after 15 s, 408 after 10 s of silence", () => {
    expect(parseAppConfig({}).timeRules).toEqual({
      scale: 1,
      pingIntervalMs: 20_000,
      keepAliveMs: 15_000,
      bodySilenceMs: 10_000,
    });
  });

  test("are each multiplied by TIME_SCALE", () => {
    expect(parseAppConfig({ TIME_SCALE: "0.05" }).timeRules).toEqual({
      scale: 0.05,
      pingIntervalMs: 1_000,
      keepAliveMs: 750,
      bodySilenceMs: 500,
    });
    expect(parseAppConfig({ TIME_SCALE: "1" }).timeRules).toEqual(timeRules());
  });

  test("come to a whole millisecond, and one at least, however small the scale", () => {
    expect(timeRules(0.0001234)).toEqual({ scale: 0.0001234, pingIntervalMs: 2, keepAliveMs: 2, bodySilenceMs: 1 });
    expect(timeRules(1e-9)).toMatchObject({ pingIntervalMs: 1, keepAliveMs: 1, bodySilenceMs: 1 });
  });
});

describe("an app at TIME_SCALE=0.05", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test("refuses a body silent for 0.5 s with 408, saying so", async () => {
    const app = appFrom({ TIME_SCALE: "0.05" });
    const before = await snapshot(app, "/tasks");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(utf8('{"title":'));
      },
    });
    let answered: Response | undefined;
    const answer = Promise.resolve(
      app.request(new Request("http://localhost/tasks", { method: "POST", body, duplex: "half" })),
    ).then((res) => {
      answered = res;
      return res;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(answered).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    // The limit is confirmed a turn later, at the same time.
    await vi.runOnlyPendingTimersAsync();
    await expectJsonError(await answer, 408, bodyStalled(0.5));
    expect(await snapshot(app, "/tasks")).toEqual(before);
  });

  test("sends a quiet event stream a keep-alive comment after 0.75 s", async () => {
    const res = await appFrom({ TIME_SCALE: "0.05" }).request("/tasks/events?after=2");
    const reader = res.body?.getReader();
    if (reader === undefined) throw new Error("An event stream must have a body");
    expect(decoder.decode((await reader.read()).value)).toBe(": following the list\n\n");
    await vi.advanceTimersByTimeAsync(700);
    let arrived = false;
    const next = reader.read().then((chunk) => {
      arrived = true;
      return chunk;
    });
    await vi.advanceTimersByTimeAsync(40);
    expect(arrived).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(decoder.decode((await next).value)).toBe(": keep-alive\n\n");
    await reader.cancel();
  });
});
