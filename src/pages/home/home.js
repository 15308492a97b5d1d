// The home page's script: its start; scripts/build-home-page.ts inlines the modules it imports before it.
// @ts-check
import { addTasks, resumeAdd } from "./add.js";
import { byId } from "./dom.js";
import { openApiUrl } from "./service.js";
import { refresh, stopStream } from "./sync.js";
import { controlTasks } from "./task-controls.js";
import { takeTokens } from "./token.js";

byId("openapi-link", HTMLAnchorElement).href = openApiUrl;
addTasks();
controlTasks();
takeTokens(() => {
  refresh();
  resumeAdd();
});
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});
// Leaving the page ends its stream cleanly rather than cutting it off mid-way.
addEventListener("pagehide", stopStream);
refresh();
