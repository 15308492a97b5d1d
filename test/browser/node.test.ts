import { describeHomePage } from "./home-page.ts";
import { describeLongTitles } from "./long-titles.ts";
import { describeOffline } from "./offline.ts";
import { describeOutbox } from "./outbox.ts";
import { describeTaskControls } from "./task-controls.ts";
import { describeTodoMvc } from "./todomvc.ts";
import { describeTokenFlow } from "./token-flow.ts";
import { describeUndo } from "./undo.ts";

describeHomePage("node");
describeTaskControls("node");
describeTokenFlow("node");
describeLongTitles("node");
describeTodoMvc("node");
describeUndo("node");
describeOutbox("node");
describeOffline("node");
