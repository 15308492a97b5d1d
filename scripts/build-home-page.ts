// Builds src/pages/home-page.generated.ts from the home page's files in src/pages/home/: `npm run build:page`.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";

const HOME = new URL("../src/pages/home/", import.meta.url);
/** The module the runtimes serve the page from; committed, so that none of them needs a build step. */
export const GENERATED = new URL("../src/pages/home-page.generated.ts", import.meta.url);

// index.html links its style and script as the files they are, so editors and tools follow them; the
// served page has no path of its own for them, so the built page has both inline, allowed by hash.
const STYLE_LINK = '<link rel="stylesheet" href="home.css">';
const SCRIPT_LINK = '<script type="module" src="home.js"></script>';

const HTML_HEADER = /^<!-- .* -->\n/;
const CSS_HEADER = /^\/\* .* \*\/\n/;
const JS_HEADER = /^\/\/ .*\n\/\/ @ts-check\n/;
const CSS_IMPORT = /^@import "([\w-]+\.css)";\n/gm;
// The modules of home.js use no more of the module syntax than this, so that they can be inlined
// one after another into one script, in the order of their imports.
const IMPORT = /^import \{([^}]*)\} from "\.\/([\w-]+\.js)";\n/gm;
const EXPORT = /^export (?=(?:async function|function|const|let|class) )/gm;
const DECLARATION = /^(?:async function|function|const|let|class) ([\w$]+)/gm;

/** The text of the generated module, from the page's files as they are now. */
export function buildHomePage(): string {
  const style = `\n${styleOf("home.css")}`;
  const script = `\n${bundle("home.js")}`;
  if (/<\/style/i.test(style)) throw new Error("home.css must not hold </style: it would end the page's style");
  if (/<\/script|<!--/i.test(script)) throw new Error("The modules of home.js must not hold </script or <!--");
  const html = replaceOnce(
    replaceOnce(withoutHeader("index.html", HTML_HEADER), STYLE_LINK, `<style>${style}</style>`),
    SCRIPT_LINK,
    `<script type="module">${script}</script>`,
  );
  // The worker is a script of its own, at a path of its own: served as it is written.
  const worker = readFileSync(new URL("service-worker.js", HOME), "utf8");
  if (!JS_HEADER.test(worker))
    throw new Error("src/pages/home/service-worker.js must open with a comment line saying what it is");
  return `// The home page as served, built by scripts/build-home-page.ts from src/pages/home/: run npm run build:page after changing them.

/** The page: src/pages/home/index.html, with home.css (and the sheets it imports) and home.js inline. */
export const HTML = ${JSON.stringify(html)};

/** The SHA-256 of the page's inline script, in base64, as its Content-Security-Policy names it. */
export const SCRIPT_HASH = "${sha256(script)}";

/** The SHA-256 of the page's inline style, in base64, as its Content-Security-Policy names it. */
export const STYLE_HASH = "${sha256(style)}";

/** The SHA-256 of the whole page, in base64: its version. */
export const HTML_HASH = "${sha256(html)}";

/** The page's service worker: src/pages/home/service-worker.js as it is, served beside the page. */
export const SERVICE_WORKER = ${JSON.stringify(worker)};

/** The SHA-256 of the service worker, in base64: its version. */
export const SERVICE_WORKER_HASH = "${sha256(worker)}";
`;
}

/**
 * A stylesheet with each stylesheet it imports (`@import "name.css";`, at its top, as CSS asks) in
 * the import's place: the cascade keeps the order a browser reading the files would give it.
 */
function styleOf(file: string): string {
  return withoutHeader(file, CSS_HEADER).replace(CSS_IMPORT, (_line, imported: string) => styleOf(imported));
}

/** home.js and the modules it imports, each after those it imports, without their import and export syntax. */
function bundle(entry: string): string {
  const sources = new Map<string, string>();
  const visit = (file: string) => {
    if (sources.has(file)) return;
    const source = withoutHeader(file, JS_HEADER);
    sources.set(file, source);
    for (const [, names = "", dependency = ""] of source.matchAll(IMPORT)) {
      if (names.includes(" as ")) throw new Error(`${file} renames an import: the inlined modules share one scope`);
      visit(dependency);
    }
    // Map keeps the order of insertion; re-inserting puts each module after those it imports.
    sources.delete(file);
    sources.set(file, source);
  };
  visit(entry);
  const declaredIn = new Map<string, string>();
  const modules = [...sources].map(([file, source]) => {
    const code = source.replace(IMPORT, "").replace(EXPORT, "").trim();
    if (/^(?:import|export)\b/m.test(code)) {
      throw new Error(`${file} uses import or export in a way the build cannot inline: see scripts/build-home-page.ts`);
    }
    for (const [, name = ""] of code.matchAll(DECLARATION)) {
      const other = declaredIn.get(name);
      if (other !== undefined)
        throw new Error(`${file} and ${other} both declare ${name}: the inlined modules share one scope`);
      declaredIn.set(name, file);
    }
    return code;
  });
  return `${modules.join("\n\n")}\n`;
}

function withoutHeader(file: string, header: RegExp): string {
  const text = readFileSync(new URL(file, HOME), "utf8");
  if (!header.test(text)) throw new Error(`src/pages/home/${file} must open with a comment line saying what it is`);
  return text.replace(header, "");
}

function replaceOnce(text: string, link: string, inline: string): string {
  const parts = text.split(link);
  if (parts.length !== 2) throw new Error(`src/pages/home/index.html must hold ${link} once`);
  return parts.join(inline);
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("base64");
}

if (import.meta.main) writeFileSync(GENERATED, buildHomePage());
