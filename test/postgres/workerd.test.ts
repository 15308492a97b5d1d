import { describePostgresRuntime } from "./postgres-runtime.ts";

describePostgresRuntime("workerd");
