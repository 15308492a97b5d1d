import { describeReliability } from "./reliability.ts";

describeReliability("deno");
