// What the tests that wait on the servers' time rules start them with: TIME_SCALE, which shortens
// the pings, the keep-alive comment, a body's silence and the runtimes' own time limits alike.

/** A twentieth: pings 1 s apart rather than 20 s, a keep-alive comment after 0.75 s, 408 after 0.5 s of silence. */
export const TIME_SCALE = 0.05;

/** The setting that starts a server at `scale` times the contract's lengths. */
export function timeScaled(scale = TIME_SCALE): Record<string, string> {
  return { TIME_SCALE: String(scale) };
}
