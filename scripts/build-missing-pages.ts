// Builds src/pages/missing-pages.generated.ts from src/pages/missing/: part of `npm run build:page`.
import { readFileSync, writeFileSync } from "node:fs";

const TEMPLATE = new URL("../src/pages/missing/missing-list.html", import.meta.url);
/** The module the runtimes serve the pages from; committed, so that none of them needs a build step. */
export const MISSING_GENERATED = new URL("../src/pages/missing-pages.generated.ts", import.meta.url);

const HTML_HEADER = /^<!-- .* -->\n/;
const SLOTS = ["{heading}", "{reason}"] as const;

/** What each page says, filled into the template; plain text, escaped as it goes in. */
const PAGES = [
  {
    name: "NOT_FOUND_HTML",
    doc: "no list has the name (404)",
    heading: "No list here",
    reason: "No list has this name. It may never have been created, or the link may be mistyped.",
  },
  {
    name: "DELETED_HTML",
    doc: "the list was deleted (410)",
    heading: "This list was deleted",
    reason: "This list was deleted, and its tasks with it.",
  },
];

/** The text of the generated module, from the template as it is now. */
export function buildMissingPages(): string {
  const template = templateText();
  const pages = PAGES.map(
    ({ name, doc, heading, reason }) => `
/** src/pages/missing/missing-list.html: ${doc}. */
export const ${name} = ${JSON.stringify(template.replaceAll("{heading}", htmlText(heading)).replace("{reason}", htmlText(reason)))};
`,
  );
  return `// The pages a browser gets at a list's page for no list, built by scripts/build-missing-pages.ts from src/pages/missing/: run npm run build:page after changing them.
${pages.join("")}`;
}

function templateText(): string {
  const text = readFileSync(TEMPLATE, "utf8");
  if (!HTML_HEADER.test(text))
    throw new Error("src/pages/missing/missing-list.html must open with a comment line saying what it is");
  if (/<(script|style)\b|\sstyle=/i.test(text))
    throw new Error("src/pages/missing/missing-list.html must hold no script or style: its policy allows none");
  const body = text.replace(HTML_HEADER, "");
  for (const slot of SLOTS) {
    if (!body.includes(slot)) throw new Error(`src/pages/missing/missing-list.html must hold ${slot}`);
  }
  return body;
}

function htmlText(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}

if (import.meta.main) writeFileSync(MISSING_GENERATED, buildMissingPages());
