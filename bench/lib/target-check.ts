// What checking one of an issue's targets says, as every scenario's targets report it.

/** One of an issue's targets checked for one runtime (and size or scenario). */
export interface TargetCheck {
  readonly issue: string;
  readonly target: string;
  readonly subject: string;
  /** The measured figure, as the target states it. */
  readonly value: string;
  /** Undefined when the run did not measure what the target needs. */
  readonly met: boolean | undefined;
}
