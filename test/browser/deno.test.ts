import { describeHomePage } from "./home-page.ts";

describeHomePage("deno");
