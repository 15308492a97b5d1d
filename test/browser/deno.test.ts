import { describeHomePage } from "./home-page.ts";
import { describeLongTitles } from "./long-titles.ts";
import { describeOffline } from "./offline.ts";
import { describeOutbox } from "./outbox.ts";
import { describeTaskControls } from "./task-controls.ts";
import { describeTodoMvc } from "./todomvc.ts";
import { describeTokenFlow } from "./token-flow.ts";
import { describeUndo } from "./undo.ts";

describeHomePage("deno");
describeTaskControls("deno");
describeTokenFlow("deno");
describeLongTitles("deno");
describeTodoMvc("deno");
describeUndo("deno");
describeOutbox("deno");
describeOffline("deno");
