import type { TestProject } from "vitest/node";
import { startPostgres } from "../support/postgres-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The throwaway server every test file of the project shares: its superuser's URL and password. */
    postgres: { readonly url: string; readonly password: string };
  }
}

/**
 * Starts one throwaway PostgreSQL server for the `postgres` project and stops it after the last
 * file. Each file keeps its lists in schemas of its own, so files never see each other's lists.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startPostgres();
  project.provide("postgres", { url: server.url, password: server.password });
  return () => server.stop();
}
