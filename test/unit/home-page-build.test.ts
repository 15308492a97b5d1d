// The page modules the runtimes serve are the ones built from the pages' files as they are.
import { readFileSync } from "node:fs";
import { Script } from "node:vm";
import { expect, test } from "vitest";
import { buildHomePage, GENERATED } from "../../scripts/build-home-page.ts";
import { buildMissingPages, MISSING_GENERATED } from "../../scripts/build-missing-pages.ts";
import { HTML } from "../../src/pages/home-page.generated.ts";

test("src/pages/home-page.generated.ts is built from src/pages/home/ as it is", () => {
  expect(readFileSync(GENERATED, "utf8"), "src/pages/home-page.generated.ts is stale: run npm run build:page").toBe(
    buildHomePage(),
  );
});

test("src/pages/missing-pages.generated.ts is built from src/pages/missing/ as it is", () => {
  expect(
    readFileSync(MISSING_GENERATED, "utf8"),
    "src/pages/missing-pages.generated.ts is stale: run npm run build:page",
  ).toBe(buildMissingPages());
});

test("the modules of the page's script, inlined one after another, are one script that parses", () => {
  const [, script = ""] = /<script type="module">([\s\S]*?)<\/script>/.exec(HTML) ?? [];
  expect(script).toContain("refresh();");
  expect(() => new Script(`"use strict";${script}`)).not.toThrow();
});
