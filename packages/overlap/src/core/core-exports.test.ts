import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as core from "./index.js";

const source = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

/** Every name `core/index.ts` exports, values and types. */
function exportedNames(text: string): string[] {
  const names: string[] = [];
  for (const [, list] of text.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
    for (const item of (list ?? "").split(",")) {
      const name = item.replace(/^\s*type\s+/, "").trim();
      if (name) names.push(name);
    }
  }
  return names;
}

/** The README's section on overlap-runtime/core, up to the next heading. */
function coreSection(text: string): string {
  const start = text.indexOf("### The building blocks (`overlap-runtime/core`)");
  expect(start).toBeGreaterThan(-1);
  const end = text.indexOf("\n#", start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

describe("overlap-runtime/core", () => {
  it("names every export in the README's section on it, with what it is for", () => {
    const section = coreSection(readme);
    const names = exportedNames(source);
    expect(names.length).toBeGreaterThan(0);
    // The parse of the source finds every value the module really exports.
    for (const value of Object.keys(core)) expect(names).toContain(value);
    const missing = names.filter((name) => !section.includes(`\`${name}`));
    expect(missing).toEqual([]);
  });
});
