import { describe, expect, it } from "vitest";
import type { AgentEvent } from "./agent-event.js";
import { guardedSink } from "./guarded-sink.js";

const start: AgentEvent = { type: "round-start", round: 1 };

describe("guardedSink", () => {
  it("never throws, whatever the sink does", () => {
    const sink = guardedSink(() => {
      throw new Error("connection closed");
    });
    expect(() => sink(start)).not.toThrow();
  });

  it("keeps delivering after a failure", () => {
    const seen: AgentEvent[] = [];
    let calls = 0;
    const sink = guardedSink((event) => {
      calls++;
      if (calls === 1) throw new Error("once");
      seen.push(event);
    });
    sink(start);
    sink({ type: "round-start", round: 2 });
    expect(seen).toEqual([{ type: "round-start", round: 2 }]);
  });

  it("stamps the agent on events that name none, and keeps a delegate's own", () => {
    const seen: AgentEvent[] = [];
    const sink = guardedSink((event) => seen.push(event), "shopper");
    sink(start);
    sink({ ...start, agent: "researcher" });
    expect(seen.map((e) => e.agent)).toEqual(["shopper", "researcher"]);
    const plain: AgentEvent[] = [];
    guardedSink((event) => plain.push(event))(start);
    expect(plain[0]).toBe(start);
  });
});
