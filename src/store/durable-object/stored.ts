// What a Durable Object's write answers when its own storage refused it, as a value rather than a
// thrown error, and how a caller reads it.

/**
 * What an object's write answers when it wrote nothing: its own storage refused it, or the call
 * brought arguments it cannot read (a Worker of another version, while a deploy spreads, reads this
 * outcome as well). Thrown across RPC, the error would also be reported by workerd as an uncaught
 * exception of the object; as a value, the caller alone fails its request (500) or tries again (the
 * directory), and logs it.
 */
export interface StorageFailed {
  readonly outcome: "storage-failed";
  readonly message: string;
}

/**
 * What a list's object answers a task write whose arguments it cannot read as a task or a patch:
 * while a deploy spreads, a Worker of one version may call an object of another.
 */
export const CALLED_WITHOUT_TASK: StorageFailed = {
  outcome: "storage-failed",
  message: "The list's object was called without a task it can read, as by a Worker of another version",
};

/** An object write's answer, or its storage's refusal. */
export type Stored<T> = T | StorageFailed | Promise<T | StorageFailed>;

/** The answer of an object's write, throwing (500) where its storage refused it. */
export function unlessFailed<T>(what: string, answer: T | StorageFailed): T {
  if (typeof answer === "object" && answer !== null && (answer as { outcome?: unknown }).outcome === "storage-failed") {
    throw new Error(`${what} could not write: ${(answer as StorageFailed).message}`);
  }
  return answer as T;
}
