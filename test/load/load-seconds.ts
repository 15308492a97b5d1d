// What `npm run test:load` asks of the load tests beside `npm test`: LOAD_SECONDS, set by its script.

/**
 * Whether this is `npm run test:load`: the load phases and the waits on the servers' time limits
 * run, and crowds come at full size. `npm test` checks the same rules without the load.
 */
export const RUNS_LOAD = (process.env.LOAD_SECONDS ?? "") !== "";

/** Seconds of each load phase. */
export const LOAD_SECONDS = loadSeconds(process.env.LOAD_SECONDS);

function loadSeconds(value: string | undefined): number {
  if (value === undefined || value === "") return 1;
  const seconds = Number(value);
  if (!(Number.isInteger(seconds) && seconds >= 1 && seconds <= 300)) {
    throw new Error(`LOAD_SECONDS must be a whole number of seconds from 1 to 300, got ${JSON.stringify(value)}`);
  }
  return seconds;
}
