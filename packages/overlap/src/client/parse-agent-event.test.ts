import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../protocol/agent-event.js";
import { AGENT_EVENT_SAMPLES } from "./__fixtures__/agent-event-samples.js";
import { buildTurnEvents, turnScriptArb } from "./__fixtures__/turn-script.js";
import { isAgentEvent, parseAgentEvent } from "./parse-agent-event.js";

const samples: AgentEvent[] = Object.values(AGENT_EVENT_SAMPLES);
const OPTIONAL = new Set([
  "agent",
  "parentCallId",
  "preview",
  "result",
  "error",
  // approval-request / approval-resolved
  "details",
  "timeoutMs",
  "reason",
  // tool-result
  "problem",
]);

describe("parseAgentEvent", () => {
  it.each(samples.map((e) => [e.type, e] as const))("accepts a valid %s event", (_, event) => {
    expect(parseAgentEvent(JSON.stringify(event))).toEqual(event);
  });

  it("accepts every event of generated turns, delegated ones included", () => {
    fc.assert(
      fc.property(turnScriptArb, (script) => {
        for (const event of buildTurnEvents(script).events) {
          expect(parseAgentEvent(JSON.stringify(event))).toEqual(event);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("accepts a result's problem (a code and its facts) and refuses a malformed one", () => {
    const event = {
      ...AGENT_EVENT_SAMPLES["tool-result"],
      isError: true,
      status: "error",
      problem: { code: "insufficient_stock", params: { available: 2 } },
    };
    expect(parseAgentEvent(JSON.stringify(event))).toEqual(event);
    for (const problem of [{ params: {} }, { code: 3 }, "no stock", { code: "x", params: [1] }]) {
      expect(parseAgentEvent(JSON.stringify({ ...event, problem }))).toBeUndefined();
    }
  });

  // Stored event logs of turns that ran before the rename are replayed on reload and resume.
  it("reads a done of the older shape (its count named rounds) with roundCount", () => {
    const old = { type: "done", rounds: 3, stopReason: "end_turn", agent: "shopper" };
    expect(parseAgentEvent(JSON.stringify(old))).toEqual({
      type: "done",
      roundCount: 3,
      stopReason: "end_turn",
      agent: "shopper",
    });
    // The type guard checks today's shape only: it is given a value, not asked to convert one.
    expect(isAgentEvent(old)).toBe(false);
  });

  it("prefers roundCount when a done carries both names, and refuses a done with neither", () => {
    const both = { type: "done", roundCount: 2, rounds: 5, stopReason: "end_turn" };
    expect(parseAgentEvent(JSON.stringify(both))).toMatchObject({ roundCount: 2 });
    expect(parseAgentEvent('{"type":"done","stopReason":"end_turn"}')).toBeUndefined();
    expect(parseAgentEvent('{"type":"done","rounds":"3","stopReason":"end_turn"}')).toBeUndefined();
  });

  it("keeps fields it does not know (a newer server may add some)", () => {
    const event = { ...AGENT_EVENT_SAMPLES["text-delta"], traceId: "abc" };
    expect(parseAgentEvent(JSON.stringify(event))).toEqual(event);
  });

  it.each([
    ["not JSON", "{nope"],
    ["empty", ""],
    ["a JSON string", '"text-delta"'],
    ["null", "null"],
    ["an array", "[1,2]"],
    ["no type", '{"round":1}'],
    ["a non-string type", '{"type":3}'],
    ["an unknown type", '{"type":"tool-progress","round":1,"callId":"a"}'],
    ["an inherited name as type", '{"type":"constructor"}'],
    ["__proto__ as type", '{"type":"__proto__"}'],
    ["a missing field", '{"type":"text-delta","round":1,"index":0}'],
    ["a mistyped field", '{"type":"text-delta","round":"1","index":0,"text":"a"}'],
    ["a non-finite number", '{"type":"round-start","round":1e999}'],
    [
      "an unknown status",
      '{"type":"tool-status","round":1,"callId":"a","name":"n","status":"paused","atMs":1}',
    ],
    [
      "an unknown dispatch",
      '{"type":"tool-call","round":1,"index":0,"callId":"a","name":"n","input":{},"dispatch":"later"}',
    ],
    [
      "an array as input",
      '{"type":"tool-call","round":1,"index":0,"callId":"a","name":"n","input":[],"dispatch":"started"}',
    ],
    ["a ui without type", '{"type":"ui","round":1,"callId":"a","name":"n","ui":{"cart":1}}'],
    [
      "timings without blocks",
      '{"type":"round-end","round":1,"stopReason":"end_turn","usage":{},"timings":{"startedAt":1,"tools":[]}}',
    ],
    [
      "a mistyped parentCallId",
      '{"type":"done","roundCount":1,"stopReason":"end_turn","parentCallId":7}',
    ],
    ["a mistyped agent", '{"type":"done","roundCount":1,"stopReason":"end_turn","agent":false}'],
    [
      "an unknown approval decision",
      '{"type":"approval-resolved","round":1,"callId":"a","name":"checkout","decision":"maybe"}',
    ],
    [
      "an approval request without a summary",
      '{"type":"approval-request","round":1,"callId":"a","name":"checkout","input":{}}',
    ],
  ])("skips %s", (_, data) => {
    expect(parseAgentEvent(data)).toBeUndefined();
  });

  it("rejects each sample with any one required field removed or replaced by a wrong type", () => {
    for (const sample of samples) {
      for (const field of Object.keys(sample)) {
        const value = (sample as unknown as Record<string, unknown>)[field];
        // Fields whose absence is valid: optional ones and arbitrary JSON.
        if (OPTIONAL.has(field) || (sample.type === "server-tool" && field === "input")) continue;
        const { [field]: _removed, ...without } = sample as unknown as Record<string, unknown>;
        expect(parseAgentEvent(JSON.stringify(without)), `${sample.type} without ${field}`).toBe(
          undefined,
        );
        const wrong = typeof value === "string" ? 42 : "42";
        expect(
          parseAgentEvent(JSON.stringify({ ...sample, [field]: wrong })),
          `${sample.type} with a wrong ${field}`,
        ).toBeUndefined();
      }
    }
  });

  it("never throws, whatever the data", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
        (data) => {
          expect(() => parseAgentEvent(data)).not.toThrow();
        },
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...samples),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (sample, noise) => {
          // Noise over a valid event: parses or is skipped, and never throws.
          const result = parseAgentEvent(JSON.stringify({ ...sample, ...noise }));
          if (result !== undefined) expect(isAgentEvent(result)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
