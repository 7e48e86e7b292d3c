import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isEmptyMessage } from "./empty-message.js";

/*
 * The web app's copy (its message box does not offer to send what the server refuses), loaded by
 * path: the root type-check must not follow into the web app.
 */
const load = (path: string): Promise<unknown> => import(path);
const web = (await load("../../web/src/chat/empty-message.ts")) as {
  isEmptyMessage(text: string): boolean;
};

/** Invisible format characters (Unicode category Cf), by name. */
const FORMAT = {
  "soft hyphen": "\u00ad",
  "Arabic letter mark": "\u061c",
  "Mongolian vowel separator": "\u180e",
  "zero-width space": "\u200b",
  "zero-width non-joiner": "\u200c",
  "zero-width joiner": "\u200d",
  "left-to-right mark": "\u200e",
  "right-to-left mark": "\u200f",
  "left-to-right embedding": "\u202a",
  "right-to-left override": "\u202e",
  "word joiner": "\u2060",
  "invisible times": "\u2062",
  "left-to-right isolate": "\u2066",
  "pop directional isolate": "\u2069",
  "byte order mark": "\ufeff",
  "interlinear annotation anchor": "\ufff9",
  "language tag": "\u{e0001}",
  "tag latin small letter a": "\u{e0061}",
  "cancel tag": "\u{e007f}",
} as const;

const SPACES = [" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\u2028", "\u2029"];

const both = (text: string) => [isEmptyMessage(text), web.isEmptyMessage(text)];

describe("isEmptyMessage", () => {
  it("is true for nothing, spaces only, and each invisible format character alone", () => {
    expect(both("")).toEqual([true, true]);
    for (const space of SPACES)
      expect(both(space.repeat(3)), JSON.stringify(space)).toEqual([true, true]);
    for (const [name, char] of Object.entries(FORMAT)) {
      expect(both(char), name).toEqual([true, true]);
      expect(both(char.repeat(5)), name).toEqual([true, true]);
    }
  });

  it("is true for many format characters mixed with spaces", () => {
    const all = Object.values(FORMAT).join("");
    expect(both(all)).toEqual([true, true]);
    expect(both(` ${all}\n\t${all} \u3000`)).toEqual([true, true]);
    expect(both("\u200b \u200d\n\ufeff\u2060 \u00ad")).toEqual([true, true]);
  });

  it("is false as soon as one visible character is there, wherever it stands", () => {
    for (const visible of ["a", "买", "1", ".", "🛒", "é", "\u0301"]) {
      expect(both(visible), visible).toEqual([false, false]);
      expect(both(`\u200b ${visible}\u200d `), visible).toEqual([false, false]);
      expect(both(`${Object.values(FORMAT).join("")}${visible}`), visible).toEqual([false, false]);
    }
  });

  it("keeps emoji ZWJ sequences, flags and words with format characters inside", () => {
    for (const text of [
      "👩‍👩‍👧", // family: woman ZWJ woman ZWJ girl
      "🏳️‍🌈",
      "🏴󠁧󠁢󠁳󠁣󠁴󠁿", // Scotland: black flag, tag characters, cancel tag
      "add 2 of these 👨‍🍳",
      "co\u00adop", // a soft hyphen inside a word
      "\u200fשלום\u200e",
      "\ufeffhello",
    ]) {
      expect(both(text), text).toEqual([false, false]);
    }
  });

  it("leaves characters that are neither spaces nor format characters to other checks", () => {
    // NUL and lone surrogates are refused as malformed text (invalid_request), not as empty.
    for (const text of ["\u0000", " \ud800", "\udc00\u200b"]) {
      expect(both(text)).toEqual([false, false]);
    }
  });

  it("agrees with removing every \\s and \\p{Cf} character (property)", () => {
    const pieces = [...SPACES, ...Object.values(FORMAT), "a", "买", "🛒", "👩‍👧"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), (parts) => {
        const text = parts.join("");
        const expected = text.replace(/[\s\p{Cf}]/gu, "") === "";
        expect(both(text)).toEqual([expected, expected]);
      }),
    );
  });
});
