import { describe, expect, test } from "vitest";
import type { Runtime } from "../support/server.ts";
import { useServer } from "../support/server-fixture.ts";
import { corsOrigins, describeCors, describeCorsOff, describeNoEcho } from "./browser-facing.ts";
import { describeFaults } from "./faults.ts";
import { expectMessageBody, listText, postTask, send } from "./http.ts";
import { crowdSlots, describeCrowd, describeLive } from "./live.ts";
import { LOAD_SECONDS, RUNS_LOAD } from "./load-seconds.ts";
import { describeFigures, MAX_IN_FLIGHT, runMixedLoad } from "./mixed-load.ts";
import { describeSteadyFigures, runSteadyLoad } from "./steady-load.ts";

// The load phases measure a server under load (its memory above all) and run with `npm run
// test:load` only: what they assert besides memory, `npm test` holds with cases of its own (100
// concurrent POSTs, no task lost or twice, the list unchanged by requests that change nothing).
const BODY_LIMIT = 1024;
const KIB = 1024;

/**
 * Whether the server's memory is bounded, as read from /proc/PID/status. workerd's process grew
 * past the others' bounds on this machine (by 53 MiB over 20 s of requests that change nothing),
 * and on Cloudflare an isolate's memory is the platform's to cap, so there it is printed only.
 */
const MEMORY_BOUNDED: Readonly<Record<Runtime, boolean>> = { node: true, bun: true, deno: true, workerd: false };

/**
 * How much memory may grow during the mixed load: a fixed headroom for the runtime's heap sizing
 * under load, plus 64 times the list. The list is held once, in pages; a GET of more than 256 KiB
 * sends views of them, but every GET after a POST of a shorter list makes a fresh copy of it, and
 * the runtimes hand that garbage back to the system in batches, not one by one. The headroom
 * varies from run to run (measured on Node over 3 s with a 0.3 MiB list: +13 to +105 MiB on a busy
 * machine; Deno once +71 MiB).
 */
const MIXED_HEADROOM_MIB = 96;
const LIST_COPIES = 64;
/**
 * How much memory may grow while requests that change nothing are served: the list is fixed, so
 * this only absorbs the allocator growing in steps (Deno: up to about 30 MiB, then flat). A leak
 * of L bytes per request passes it after 48 MiB / L requests: a few hundred bytes per request in
 * the 20 s of `npm run test:load`.
 */
const STEADY_HEADROOM_MIB = 48;

/** The most memory may grow, in KiB, during the mixed load that leaves a list of `listBytes`. */
function mixedBoundKib(runtime: Runtime, listBytes: number): number | undefined {
  return MEMORY_BOUNDED[runtime] ? MIXED_HEADROOM_MIB * KIB + (LIST_COPIES * listBytes) / KIB : undefined;
}

/**
 * Registers the reliability tests for one runtime, each against real servers it starts: a mixed
 * load, fault cases, CORS and echo checks and a crowd of subscribers on a server with CORS on and
 * a small body limit, then the full-list and CORS-off cases on a server with MAX_TASKS=3, then the
 * live checks of {@link describeLive}.
 */
export function describeReliability(runtime: Runtime): void {
  const memoryClause = MEMORY_BOUNDED[runtime] ? ", and its memory grows only with the list" : "";
  describe(`${runtime} server with CORS on and MAX_BODY_BYTES=${BODY_LIMIT}`, () => {
    const server = useServer(runtime, {
      LOG_LEVEL: "warn",
      MAX_BODY_BYTES: String(BODY_LIMIT),
      MAX_TASKS: "100000000",
      CORS_ORIGINS: corsOrigins,
      ...crowdSlots(runtime),
    });

    test.runIf(RUNS_LOAD)(
      `under ${LOAD_SECONDS} s of mixed keep-alive load it answers every request, loses and duplicates no task${memoryClause}`,
      async () => {
        const figures = await runMixedLoad(server(), runtime, LOAD_SECONDS);
        const bound = mixedBoundKib(runtime, figures.listBytes);
        console.log(describeFigures(figures, bound));

        expect(figures.connectionErrors).toBe(0);
        expect(figures.serverErrors).toBe(0);
        expect(figures.unexpected).toEqual([]);
        expect(figures.acknowledged).toBeGreaterThan(0);
        expect(figures.lost).toBe(0);
        expect(figures.duplicated).toBe(0);
        expect(figures.unknown).toBe(0);
        expect(figures.idGaps).toBe(0);
        expect(figures.inFlight).toBeLessThanOrEqual(MAX_IN_FLIGHT);
        expect(figures.tasks).toBe(2 + figures.acknowledged + figures.inFlight);
        if (bound !== undefined) {
          expect(figures.memoryAfterKib - figures.memoryBeforeKib).toBeLessThanOrEqual(bound);
        }
      },
      (LOAD_SECONDS + 90) * 1000,
    );

    test.runIf(RUNS_LOAD)(
      `under ${LOAD_SECONDS} s of requests that change nothing it answers each as the contract says${MEMORY_BOUNDED[runtime] ? " and its memory stays flat" : ""}`,
      async () => {
        const figures = await runSteadyLoad(server(), runtime, LOAD_SECONDS);
        const bound = MEMORY_BOUNDED[runtime] ? STEADY_HEADROOM_MIB * KIB : undefined;
        console.log(describeSteadyFigures(figures, bound));

        expect(figures.connectionErrors).toBe(0);
        expect(figures.serverErrors).toBe(0);
        expect(figures.unexpected).toEqual([]);
        expect(figures.listUnchanged).toBe(true);
        if (bound !== undefined) {
          expect(figures.memoryAfterKib - figures.memoryBeforeKib).toBeLessThanOrEqual(bound);
        }
      },
      (LOAD_SECONDS + 90) * 1000,
    );

    describeFaults(server, BODY_LIMIT);
    describeCors(server);
    describeNoEcho(server);
    describeCrowd(runtime, server);
  });

  describe(`${runtime} server with MAX_TASKS=3 and CORS off`, () => {
    const server = useServer(runtime, { LOG_LEVEL: "warn", MAX_TASKS: "3" });

    test("returns 507 once the list holds MAX_TASKS tasks, adds nothing, and GET and HEAD keep working", async () => {
      expect((await postTask(server(), "The third and last")).status).toBe(200);
      const full = await listText(server());

      const refused = await postTask(server(), "One too many");
      expect(refused.status).toBe(507);
      expectMessageBody(refused.text);

      expect(await listText(server())).toBe(full);
      expect(JSON.parse(full)).toHaveLength(3);
      const head = await send(server(), "/index.php", { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe("");
    });

    describeCorsOff(server);
  });

  describeLive(runtime);
}
