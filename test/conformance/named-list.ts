// The named list the conformance suite runs on under /lists/{name}, beside the default list.
import { expect } from "vitest";

/** The path of the suite's named list, which `listPath` gives the suite. */
export const NAMED_LIST_PATH = "/lists/conformance";

/**
 * Creates the suite's named list at `baseUrl` (the base path included) through `send` (fetch, or an
 * app's), with `token` when writing needs one, and checks the 201.
 */
export async function createNamedList(
  send: (request: Request) => Response | Promise<Response>,
  baseUrl: string,
  token?: string,
): Promise<void> {
  const res = await send(
    new Request(`${baseUrl}${NAMED_LIST_PATH}`, {
      method: "PUT",
      body: JSON.stringify({ title: "Conformance" }),
      headers: {
        "Content-Type": "application/json",
        ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
      },
    }),
  );
  expect(res.status, await res.text()).toBe(201);
}
