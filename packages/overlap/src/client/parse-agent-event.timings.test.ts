import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { parseAgentEvent } from "./parse-agent-event.js";

const roundEnd = (timings: Record<string, unknown>) =>
  JSON.stringify({
    type: "round-end",
    round: 1,
    stopReason: "tool_use",
    usage: { input_tokens: 1, output_tokens: 1 },
    timings: { startedAt: 1_700_000_000_000, blocks: [], tools: [], ...timings },
  });

describe("parseAgentEvent: round-end timings", () => {
  it("accepts the figures of a round (firstTokenMs, firstToolStartMs, savedMs...)", () => {
    const data = roundEnd({
      firstEventMs: 3,
      firstTokenMs: 12.5,
      firstToolStartMs: 40,
      streamEndMs: 90,
      endMs: 91,
      savedMs: 0,
    });
    expect(parseAgentEvent(data)).toEqual(JSON.parse(data) as AgentEvent);
  });

  it("accepts a round-end without them (an older server)", () => {
    expect(parseAgentEvent(roundEnd({}))?.type).toBe("round-end");
  });

  it.each(["firstEventMs", "firstTokenMs", "firstToolStartMs", "streamEndMs", "endMs", "savedMs"])(
    "refuses a %s that is not a number",
    (name) => {
      expect(parseAgentEvent(roundEnd({ [name]: "12" }))).toBeUndefined();
      expect(parseAgentEvent(roundEnd({ [name]: null }))).toBeUndefined();
    },
  );
});
