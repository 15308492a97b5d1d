import { describeRuntimeConformance } from "./runtime-suite.ts";

describeRuntimeConformance("bun");
