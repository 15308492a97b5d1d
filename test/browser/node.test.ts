import { describeHomePage } from "./home-page.ts";
import { describeTokenFlow } from "./token-flow.ts";

describeHomePage("node");
describeTokenFlow("node");
