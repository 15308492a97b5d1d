// The home page's script: its start; scripts/build-home-page.ts inlines the modules it imports before it.
// @ts-check

import { showAccess } from "./access.js";
import { addTasks, resumeAdd } from "./add.js";
import { byId, settle } from "./dom.js";
import { editTitles } from "./edit.js";
import { sendWaiting } from "./flush.js";
import { followFilter } from "./footer.js";
import { afterGone } from "./gone.js";
import { queuedRows, render, rows } from "./list.js";
import { listTools } from "./list-tools.js";
import { followLists, readLists, restartLists } from "./lists.js";
import { keepPageOffline, lastSeen } from "./offline.js";
import { dropToken, openApiUrl } from "./service.js";
import { shareList } from "./share.js";
import { learnLinkAccess, takeLinkKey } from "./share-link.js";
import { refresh, restart, stopStream } from "./sync.js";
import { controlTasks } from "./task-controls.js";
import { showTokenForm, takeTokens, tokenTools } from "./token.js";
import { deleteTasks } from "./undo.js";

// Before anything reads the list, or the filters read the address's fragment.
const linked = takeLinkKey();
byId("openapi-link", HTMLAnchorElement).href = openApiUrl;
// The list as last seen shows at once, while it is read, and stays shown when it cannot be.
const seen = lastSeen();
if (seen !== undefined) render(seen);
followFilter();
addTasks();
controlTasks();
deleteTasks();
listTools();
shareList();
editTitles(rows);
editTitles(queuedRows);
showAccess();
takeTokens(() => {
  restart();
  restartLists();
  resumeAdd();
});
tokenTools({
  change: () => {
    stopStream();
    showTokenForm("Give the token to use from now on");
  },
  forget: () => {
    dropToken();
    restart();
    restartLists();
  },
});
document.addEventListener("visibilitychange", () => {
  if (document.hidden) return;
  refresh();
  readLists();
});
afterGone(readLists);
// Leaving the page deletes what is no longer to be undone, and ends its stream cleanly rather than
// cutting it off mid-way.
addEventListener("pagehide", () => {
  settle();
  stopStream();
});
byId("title", HTMLInputElement).focus();
refresh();
if (linked) learnLinkAccess();
followLists();
sendWaiting();
keepPageOffline();
