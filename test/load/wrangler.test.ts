import { describeReliability } from "./reliability.ts";

describeReliability("wrangler");
