import { describe, expect, it } from "vitest";
import {
  defaultPacing,
  type PaceBlock,
  type PacedItem,
  paceBlocks,
  resolvePacing,
} from "./pacing.js";

const steady = resolvePacing({ jitter: 0, tokensPerSecond: 50, firstTokenMs: 200 });
const text = (content: string): PaceBlock => ({ kind: "text", content });
const deltas = (items: PacedItem[]) => items.filter((i) => i.type === "delta");

describe("paceBlocks", () => {
  it("puts the first content delta at the first-token latency", () => {
    const items = paceBlocks([text("Hello there, shopper.")], steady);
    expect(items[0]).toEqual({ type: "block-start", index: 0, atMs: 200 });
    expect(deltas(items)[0]?.atMs).toBe(200);
  });

  it("spaces deltas at the token rate (4 characters a token)", () => {
    const content = "x".repeat(400); // 100 tokens: 2 s at 50 tokens/s
    const items = paceBlocks([text(content)], steady);
    const all = deltas(items);
    const firstTokens = Math.ceil((all[0]?.type === "delta" ? all[0].text.length : 0) / 4);
    const end = items.at(-1)!;
    expect(end.type).toBe("message-end");
    // Everything after the first delta costs its tokens; rounding up per delta adds a little.
    expect(end.atMs).toBeGreaterThanOrEqual(200 + ((100 - firstTokens) * 1000) / 50 - 1);
    expect(end.atMs).toBeLessThanOrEqual(200 + ((100 - firstTokens + all.length) * 1000) / 50 + 1);
    const times = items.map((i) => i.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("reassembles every block's content exactly and never splits a code point", () => {
    const content = "Grüße 👋🏽 from the 🛒 — 蓝色 and more text ".repeat(5);
    const items = paceBlocks(
      [text(content), { kind: "args", content: '{"sku": "A-1"}' }],
      defaultPacing,
    );
    for (const [index, expected] of [content, '{"sku": "A-1"}'].entries()) {
      const pieces = items.flatMap((i) =>
        i.type === "delta" && i.index === index ? [i.text] : [],
      );
      expect(pieces.join("")).toBe(expected);
      for (const piece of pieces) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
    }
  });

  it("keeps delta sizes within the configured ranges", () => {
    const pacing = resolvePacing({ textDeltaChars: [3, 5], argDeltaChars: [1, 2] });
    const items = paceBlocks(
      [text("a".repeat(100)), { kind: "args", content: "b".repeat(50) }],
      pacing,
    );
    for (const item of deltas(items)) {
      if (item.type !== "delta") continue;
      const [min, max] = item.index === 0 ? [3, 5] : [1, 2];
      expect(item.text.length).toBeLessThanOrEqual(max);
      if (
        item !==
        deltas(items)
          .filter((d) => d.type === "delta" && d.index === item.index)
          .at(-1)
      ) {
        expect(item.text.length).toBeGreaterThanOrEqual(min);
      }
    }
  });

  it("is deterministic for a seed and varies with it", () => {
    const blocks = [text("The quick brown fox jumps over the lazy dog. ".repeat(4))];
    const a = paceBlocks(blocks, resolvePacing({ seed: 7 }));
    expect(paceBlocks(blocks, resolvePacing({ seed: 7 }))).toEqual(a);
    expect(paceBlocks(blocks, resolvePacing({ seed: 8 }))).not.toEqual(a);
  });

  it("varies delays within the jitter bound", () => {
    const pacing = resolvePacing({
      jitter: 0.5,
      tokensPerSecond: 100,
      firstTokenMs: 100,
      textDeltaChars: [8, 8],
    });
    const items = deltas(paceBlocks([text("y".repeat(800))], pacing));
    const gaps = items.slice(1).map((d, i) => d.atMs - items[i]!.atMs);
    // 8 characters = 2 tokens = 20 ms nominal, varied by up to ±50 % (and rounded to 1 ms).
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(9);
    for (const gap of gaps) expect(gap).toBeLessThanOrEqual(31);
    expect(new Set(gaps).size).toBeGreaterThan(3);
  });

  it("delays a whole block by the server tool time and gives it no deltas", () => {
    const items = paceBlocks(
      [
        { kind: "args", content: '{"query": "x"}' },
        { kind: "whole", content: "" },
        text("Found it."),
      ],
      resolvePacing({ jitter: 0, serverToolMs: 700, firstTokenMs: 100 }),
    );
    const start = items.find((i) => i.type === "block-start" && i.index === 1)!;
    const previousStop = items.find((i) => i.type === "block-stop" && i.index === 0)!;
    expect(start.atMs - previousStop.atMs).toBe(700);
    expect(items.filter((i) => i.type === "delta" && i.index === 1)).toEqual([]);
  });

  it("puts everything at 0 ms when fast, with the same deltas", () => {
    const blocks = [
      text("Some text to split into pieces."),
      { kind: "args" as const, content: '{"a": 1}' },
    ];
    const fast = paceBlocks(blocks, resolvePacing({ fast: true }));
    const paced = paceBlocks(blocks, resolvePacing({}));
    expect(fast.every((i) => i.atMs === 0)).toBe(true);
    expect(fast.map(({ atMs: _, ...rest }) => rest)).toEqual(
      paced.map(({ atMs: _, ...rest }) => rest),
    );
  });

  it("ends an empty response at the first-token latency", () => {
    expect(paceBlocks([], steady)).toEqual([{ type: "message-end", atMs: 200 }]);
  });

  it("rejects impossible pacing", () => {
    expect(() => resolvePacing({ tokensPerSecond: 0 })).toThrow(RangeError);
    expect(() => resolvePacing({ jitter: 2 })).toThrow(RangeError);
    expect(() => resolvePacing({ textDeltaChars: [5, 2] })).toThrow(RangeError);
  });
});
