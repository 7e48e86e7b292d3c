import { describe, expect, it } from "vitest";
import { addFaultBlocks, parseFaults, requestFaults } from "./faults.js";
import { parseQuirks, requestQuirks } from "./quirks.js";
import type { SimRequest } from "./sim-request.js";
import { SimSpecError } from "./sim-spec-error.js";

describe("parseFaults", () => {
  it("reads every fault of the comma-separated syntax", () => {
    expect(
      parseFaults(
        "error-after=5, drop-after=7,invalid-json,max-tokens,status=429,slow-first-byte=250,thinking,web-search",
      ),
    ).toEqual({
      errorAfter: 5,
      dropAfter: 7,
      invalidJson: true,
      maxTokens: true,
      status: 429,
      slowFirstByteMs: 250,
      thinking: true,
      webSearch: true,
    });
    expect(parseFaults(undefined)).toEqual({});
    expect(parseFaults(" , ")).toEqual({});
    expect(parseFaults("STATUS=529").status).toBe(529);
  });

  it("refuses unknown faults and bad values", () => {
    expect(() => parseFaults("explode")).toThrow(SimSpecError);
    expect(() => parseFaults("explode")).toThrow(/Unknown fault "explode"/);
    expect(() => parseFaults("error-after")).toThrow(/whole number/);
    expect(() => parseFaults("drop-after=-1")).toThrow(SimSpecError);
    expect(() => parseFaults("status=404")).toThrow(/429, 529 or 500/);
  });

  it("adds a request's faults to the config's, and 'none' drops the config's", () => {
    const config = parseFaults("thinking,error-after=9");
    expect(requestFaults(config, "error-after=2")).toEqual({ thinking: true, errorAfter: 2 });
    expect(requestFaults(config, undefined)).toEqual(config);
    expect(requestFaults(config, "none,web-search")).toEqual({ webSearch: true });
  });
});

describe("parseQuirks", () => {
  it("reads every quirk", () => {
    expect(parseQuirks("index-zero,no-args,no-usage")).toEqual({
      indexZero: true,
      noArgs: "omit",
      noUsage: true,
    });
    expect(parseQuirks("whole-call,no-args=empty")).toEqual({ wholeCall: true, noArgs: "empty" });
    expect(parseQuirks("multi-call-chunk")).toEqual({ multiCallChunk: true });
    expect(requestQuirks({ noUsage: true }, "none,index-zero")).toEqual({ indexZero: true });
  });

  it("refuses unknown and contradictory quirks", () => {
    expect(() => parseQuirks("sloppy")).toThrow(/Unknown quirk/);
    expect(() => parseQuirks("no-args=maybe")).toThrow(SimSpecError);
    expect(() => parseQuirks("whole-call,multi-call-chunk")).toThrow(/exclude/);
  });
});

describe("addFaultBlocks", () => {
  const request: SimRequest = {
    api: "anthropic",
    model: "m",
    messages: [{ role: "user", content: [{ type: "text", text: "Find  me\nshoes" }] }],
    tools: [],
    stream: true,
    headers: {},
  };
  const script = { blocks: [{ type: "text" as const, text: "Here." }] };

  it("puts thinking first and the web search before the answer", () => {
    const out = addFaultBlocks(script, { thinking: true, webSearch: true }, request);
    expect(out.blocks.map((b) => b.type)).toEqual([
      "thinking",
      "server_tool_use",
      "web_search_tool_result",
      "text",
    ]);
    expect(out.blocks[1]).toEqual({
      type: "server_tool_use",
      name: "web_search",
      input: { query: "Find me shoes" },
    });
  });

  it("leaves the script alone without those faults", () => {
    expect(addFaultBlocks(script, { invalidJson: true }, request)).toBe(script);
  });
});
