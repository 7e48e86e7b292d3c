import { describe, expect, it } from "vitest";
import { AgentStreamClient } from "../client/agent-stream-client.js";
import { encodeAgentEvent } from "../sse/sse-encoder.js";
import { sessionActions, useAgentSession } from "./index.js";

// No DOM renderer is installed: the hook's store is AgentStreamClient (tested with the client);
// here, the bound actions it returns, and that the module loads without a DOM.
describe("useAgentSession", () => {
  it("loads in Node and is a hook function", () => {
    expect(typeof useAgentSession).toBe("function");
  });

  it("binds send, stop and resume to the client", async () => {
    const frames =
      encodeAgentEvent({ type: "text-delta", round: 1, index: 0, text: "你好" }, "t1:1") +
      encodeAgentEvent({ type: "done", roundCount: 1, stopReason: "end_turn" }, "t1:2");
    const resumed: (string | undefined)[] = [];
    const client = new AgentStreamClient({
      send: async () => new Response(frames),
      resume: async (lastEventId) => {
        resumed.push(lastEventId);
        return new Response(null, { status: 204 });
      },
    });
    const { send, stop, resume } = sessionActions(client);
    await send("hi");
    expect(client.state.turns).toHaveLength(2);
    expect(client.state.running).toBe(false);
    await resume();
    expect(resumed).toEqual(["t1:2"]);
    stop();
    expect(client.reading).toBe(false);
  });
});
