// The home page module the runtimes serve is the one built from the page's files as they are.
import { readFileSync } from "node:fs";
import { Script } from "node:vm";
import { expect, test } from "vitest";
import { buildHomePage, GENERATED } from "../../scripts/build-home-page.ts";
import { HTML } from "../../src/pages/home-page.generated.ts";

test("src/pages/home-page.generated.ts is built from src/pages/home/ as it is", () => {
  expect(readFileSync(GENERATED, "utf8"), "src/pages/home-page.generated.ts is stale: run npm run build:page").toBe(
    buildHomePage(),
  );
});

test("the modules of the page's script, inlined one after another, are one script that parses", () => {
  const [, script = ""] = /<script type="module">([\s\S]*?)<\/script>/.exec(HTML) ?? [];
  expect(script).toContain("refresh();");
  expect(() => new Script(`"use strict";${script}`)).not.toThrow();
});
