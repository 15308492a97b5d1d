import { describeRuntimeConformance } from "./runtime-suite.ts";

describeRuntimeConformance("workerd");
