import { describe, expect, it } from "vitest";
import { parseToolInput } from "./parse-tool-input.js";

describe("parseToolInput", () => {
  it("accepts a complete JSON object", () => {
    const r = parseToolInput('{"sku":"A-1","qty":2}');
    expect(r).toEqual({ ok: true, value: { sku: "A-1", qty: 2 } });
  });

  it("treats an empty buffer as an empty object (tools without parameters)", () => {
    expect(parseToolInput("")).toEqual({ ok: true, value: {} });
    expect(parseToolInput("  \n")).toEqual({ ok: true, value: {} });
  });

  it.each([
    ['{"sku":"A-1"', "not valid JSON"],
    ['{"sku":"A-1"}}', "not valid JSON"],
    ["[1,2]", "an array"],
    ["null", "null"],
    ['"text"', "a string"],
    ["42", "a number"],
  ])("rejects %s with a message the model can act on", (text, fragment) => {
    const r = parseToolInput(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toContain(fragment);
    expect(r.error).toContain("Send the call again");
    expect(r.raw).toBe(text);
  });

  it("never accepts a prefix that merely looks plausible", () => {
    const full = '{"items":[{"sku":"A"},{"sku":"B"}]}';
    for (let i = 0; i < full.length; i++) {
      expect(parseToolInput(full.slice(0, i)).ok).toBe(i === 0);
    }
    expect(parseToolInput(full).ok).toBe(true);
  });

  it("clips a huge raw buffer in the error text", () => {
    const r = parseToolInput(`{"x":"${"a".repeat(10_000)}`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.length).toBeLessThan(2_500);
  });
});
