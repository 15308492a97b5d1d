import { describeSqliteRuntime } from "./sqlite-runtime.ts";

describeSqliteRuntime("bun");
