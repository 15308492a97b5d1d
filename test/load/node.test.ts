import { describeReliability } from "./reliability.ts";

describeReliability("node");
