import { describeHomePage } from "./home-page.ts";
import { describeTokenFlow } from "./token-flow.ts";

describeHomePage("bun");
describeTokenFlow("bun");
