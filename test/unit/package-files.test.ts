// What a newcomer's clone promises before anything runs: the licence, a deploy script per wrangler
// environment (the one that keeps the lists first), a lockfile that npm install has no reason to
// rewrite, and installs that do not warn about install scripts.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(resolve(ROOT, file), "utf8");

interface Manifest {
  license?: string;
  engines?: Record<string, string>;
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

interface LockedPackage {
  version?: string;
  license?: string;
  engines?: Record<string, string>;
  hasInstallScript?: boolean;
}

const manifest: Manifest = JSON.parse(read("package.json"));
const locked: Record<string, LockedPackage> = JSON.parse(read("package-lock.json")).packages;
const lockRoot = locked[""];
const denoDenied: string[] = JSON.parse(read("deno.json")).allowScripts?.deny ?? [];

/** The environments wrangler.toml defines below its top level, by their `[env.NAME]` tables. */
const wranglerEnvironments = [...read("wrangler.toml").matchAll(/^\[env\.([A-Za-z0-9_-]+)\]/gm)].map(
  ([, name]) => name,
);

/** The environment a `wrangler deploy --env …` script names, "" for the top level; undefined for none. */
function deployEnvironment(script: string): string | undefined {
  const [, value] = /^wrangler deploy --env(?:=|\s+)("[^"]*"|'[^']*'|\S+)$/.exec(script) ?? [];
  return value?.replace(/^(["'])(.*)\1$/, "$2");
}

test("the project is MIT licensed, in package.json and in LICENSE", () => {
  expect(manifest.license).toBe("MIT");
  expect(read("LICENSE")).toMatch(/^MIT License\n/);
});

test("npm run deploy deploys the Durable Objects, which keep the lists, npm run deploy:memory the top level of wrangler.toml, and npm run deploy:<env> each other environment", () => {
  expect(wranglerEnvironments).toEqual(expect.arrayContaining(["durable", "postgres"]));
  const deployScripts = Object.entries(manifest.scripts).filter(([name]) => /^deploy(?::|$)/.test(name));
  const others = wranglerEnvironments.filter((environment) => environment !== "durable");
  expect(Object.fromEntries(deployScripts.map(([name, script]) => [name, deployEnvironment(script)]))).toEqual({
    deploy: "durable",
    "deploy:memory": "",
    ...Object.fromEntries(others.map((environment) => [`deploy:${environment}`, environment])),
  });
});

test("package-lock.json's root entry has package.json's engines and licence, as npm install would write them", () => {
  expect(lockRoot?.engines).toEqual(manifest.engines);
  expect(lockRoot?.license).toBe(manifest.license);
});

test("each locked package with an install script has its verdict in allowScripts and, for Deno, its deny entry", () => {
  const withScripts = Object.entries(locked)
    .filter(([path, entry]) => path !== "" && entry.hasInstallScript)
    .map(([path, { version = "" }]) => ({ name: path.slice(path.lastIndexOf("node_modules/") + 13), version }));
  expect(withScripts.length).toBeGreaterThan(0);
  // npm warns about each package with scripts that allowScripts neither allows nor denies.
  expect(withScripts.filter(({ name }) => typeof manifest.allowScripts?.[name] !== "boolean")).toEqual([]);
  // Deno runs none, and warns about each but esbuild's, which works without; a prerelease matches a
  // deny entry only when it names the version.
  const denoWarns = ({ name, version }: { name: string; version: string }) =>
    name !== "esbuild" && !denoDenied.includes(version.includes("-") ? `npm:${name}@${version}` : `npm:${name}`);
  expect(withScripts.filter(denoWarns)).toEqual([]);
});
