import { describeReliability } from "./reliability.ts";

describeReliability("workerd");
