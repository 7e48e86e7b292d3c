import { describe, expect, it } from "vitest";
import { anthropicDialect } from "./anthropic-dialect.js";
import { IdFactory } from "./id-factory.js";
import { type PacedItem, paceBlocks, resolvePacing } from "./pacing.js";
import type { ResolvedScript } from "./resolve-script.js";
import { SeededRandom } from "./seeded-random.js";
import {
  bufferToolInput,
  eagerInputTools,
  FINE_GRAINED_TOOL_STREAMING_BETA,
} from "./tool-input-buffering.js";

const ARGS = '{"sku": "A-1001", "quantity": 2, "note": "a gift, wrapped in red paper"}';
const SCRIPT: ResolvedScript = {
  blocks: [
    { type: "text", text: "Adding it and totalling." },
    { type: "tool_use", id: "toolu_a", name: "add_to_cart", args: ARGS },
    { type: "tool_use", id: "toolu_b", name: "cart_total", args: "" },
    { type: "server_tool_use", id: "srvtoolu_c", name: "web_search", args: '{"query": "shoes"}' },
  ],
  stopReason: "tool_use",
};
const pacing = resolvePacing({ jitter: 0, tokensPerSecond: 50, firstTokenMs: 100, seed: 7 });
const ITEMS = paceBlocks(
  SCRIPT.blocks.map((b) =>
    b.type === "tool_use" || b.type === "server_tool_use"
      ? { kind: "args", content: b.args }
      : { kind: "text", content: b.type === "text" ? b.text : "" },
  ),
  pacing,
);

const ofBlock = (items: readonly PacedItem[], index: number) =>
  items.filter((i) => i.type !== "message-end" && i.index === index);
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: name,
  input_schema: { type: "object" },
  ...extra,
});

describe("eagerInputTools", () => {
  it("lists the tools with eager_input_streaming: true, only those", () => {
    const body = {
      tools: [
        tool("a", { eager_input_streaming: true }),
        tool("b", { eager_input_streaming: false }),
        tool("c", { eager_input_streaming: null }),
        tool("d"),
      ],
    };
    expect([...eagerInputTools(body, {})]).toEqual(["a"]);
    expect([...eagerInputTools({}, {})]).toEqual([]);
  });

  it("with the legacy beta header, also the tools leaving the field unset (false still buffers)", () => {
    const body = {
      tools: [
        tool("a", { eager_input_streaming: true }),
        tool("b", { eager_input_streaming: false }),
        tool("c", { eager_input_streaming: null }),
        tool("d"),
      ],
    };
    const headers = { "anthropic-beta": `other-beta, ${FINE_GRAINED_TOOL_STREAMING_BETA}` };
    expect([...eagerInputTools(body, headers)].sort()).toEqual(["a", "c", "d"]);
  });
});

describe("bufferToolInput", () => {
  it("leaves an eager tool's paced deltas as they are: many, spread in time", () => {
    const out = bufferToolInput(SCRIPT, ITEMS, new Set(["add_to_cart", "cart_total"]));
    expect(out).toEqual(ITEMS);
    const deltas = ofBlock(out, 1).filter((i) => i.type === "delta");
    expect(deltas.length).toBeGreaterThan(3);
    expect(new Set(deltas.map((d) => d.atMs)).size).toBe(deltas.length);
  });

  it("holds a buffered tool's input and sends it whole right before its stop, at the stop's time", () => {
    const out = bufferToolInput(SCRIPT, ITEMS, new Set());
    const before = ofBlock(ITEMS, 1);
    const after = ofBlock(out, 1);
    const stop = before.at(-1)!;
    expect(after).toEqual([
      before[0], // the start, on time
      { type: "delta", index: 1, text: ARGS, atMs: stop.atMs },
      stop,
    ]);
    // Placed exactly where the stop was: nothing of another block in between.
    expect(out.indexOf(after[1]!) + 1).toBe(out.indexOf(stop));
  });

  it("changes nothing else: text, an empty input, server tools, every start and stop time", () => {
    const out = bufferToolInput(SCRIPT, ITEMS, new Set());
    for (const index of [0, 2, 3]) expect(ofBlock(out, index)).toEqual(ofBlock(ITEMS, index));
    const marks = (items: readonly PacedItem[]) => items.filter((i) => i.type !== "delta");
    expect(marks(out)).toEqual(marks(ITEMS));
    const times = out.map((i) => i.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("sends a cut input as it is (not validated either way)", () => {
    const cut: ResolvedScript = {
      blocks: [{ type: "tool_use", id: "toolu_a", name: "add_to_cart", args: '{"sku": "A-1' }],
      stopReason: "max_tokens",
    };
    const items = paceBlocks([{ kind: "args", content: '{"sku": "A-1' }], pacing);
    const deltas = bufferToolInput(cut, items, new Set()).filter((i) => i.type === "delta");
    expect(deltas).toEqual([
      { type: "delta", index: 0, text: '{"sku": "A-1', atMs: expect.any(Number) },
    ]);
  });
});

describe("the Anthropic stream frames (anthropicDialect.streamFrames)", () => {
  /** The frames of block 1 (add_to_cart) as [event type, delta text, atMs]. */
  function callFrames(tools: unknown[], headers: Record<string, string> = {}) {
    const frames = anthropicDialect.streamFrames({
      script: SCRIPT,
      items: ITEMS,
      body: { model: "m", max_tokens: 100, messages: [], tools },
      headers,
      ids: new IdFactory(new SeededRandom(1)),
      model: "scripted-sim",
      quirks: {},
    });
    return frames.flatMap((f) => {
      const data = JSON.parse(f.text.split("data: ")[1] ?? "{}");
      return data.index === 1 ? [[data.type, data.delta?.partial_json, f.atMs] as const] : [];
    });
  }

  it("eager_input_streaming: true: many input deltas, spread in time before the stop", () => {
    const frames = callFrames([tool("add_to_cart", { eager_input_streaming: true })]);
    const deltas = frames.filter(([type]) => type === "content_block_delta").slice(1);
    const stop = frames.at(-1)!;
    expect(stop[0]).toBe("content_block_stop");
    expect(deltas.length).toBeGreaterThan(3);
    expect(new Set(deltas.map(([, , at]) => at)).size).toBe(deltas.length);
    expect(deltas[0]![2]).toBeLessThan(stop[2]);
    expect(deltas.map(([, text]) => text).join("")).toBe(ARGS);
  });

  it("without it (or false): the start on time, then the whole input at the stop's time, right before it", () => {
    for (const tools of [
      [tool("add_to_cart")],
      [tool("add_to_cart", { eager_input_streaming: false })],
    ]) {
      const frames = callFrames(tools);
      const start = ITEMS.find((i) => i.type === "block-start" && i.index === 1)!;
      const stop = frames.at(-1)!;
      expect(frames).toEqual([
        ["content_block_start", undefined, start.atMs],
        ["content_block_delta", "", start.atMs],
        ["content_block_delta", ARGS, stop[2]],
        ["content_block_stop", undefined, stop[2]],
      ]);
      expect(stop[2]).toBeGreaterThan(start.atMs);
    }
  });

  it("the legacy beta header streams tools that leave the field unset", () => {
    const beta = { "anthropic-beta": FINE_GRAINED_TOOL_STREAMING_BETA };
    expect(callFrames([tool("add_to_cart")], beta).length).toBeGreaterThan(5);
  });
});
