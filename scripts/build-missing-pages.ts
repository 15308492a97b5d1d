// Builds src/pages/missing-pages.generated.ts from src/pages/missing/: part of `npm run build:page`.
import { readFileSync, writeFileSync } from "node:fs";

const MISSING = new URL("../src/pages/missing/", import.meta.url);
/** The module the runtimes serve the pages from; committed, so that none of them needs a build step. */
export const MISSING_GENERATED = new URL("../src/pages/missing-pages.generated.ts", import.meta.url);

const HTML_HEADER = /^<!-- .* -->\n/;

/** The text of the generated module, from the pages' files as they are now. */
export function buildMissingPages(): string {
  return `// The pages a browser gets at a list's page for no list, built by scripts/build-missing-pages.ts from src/pages/missing/: run npm run build:page after changing them.

/** src/pages/missing/not-found.html: no list has the name (404). */
export const NOT_FOUND_HTML = ${JSON.stringify(page("not-found.html"))};

/** src/pages/missing/deleted.html: the list was deleted (410). */
export const DELETED_HTML = ${JSON.stringify(page("deleted.html"))};
`;
}

function page(file: string): string {
  const text = readFileSync(new URL(file, MISSING), "utf8");
  if (!HTML_HEADER.test(text))
    throw new Error(`src/pages/missing/${file} must open with a comment line saying what it is`);
  if (/<(script|style)\b|\sstyle=/i.test(text))
    throw new Error(`src/pages/missing/${file} must hold no script or style: its policy allows none`);
  return text.replace(HTML_HEADER, "");
}

if (import.meta.main) writeFileSync(MISSING_GENERATED, buildMissingPages());
