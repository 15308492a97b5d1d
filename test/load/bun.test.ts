import { describeReliability } from "./reliability.ts";

describeReliability("bun");
