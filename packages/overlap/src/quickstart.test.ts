// The README's quick start, kept compiling and passing. If you change one, change the other.
import { expect, it } from "vitest";
import { z } from "zod";
import { defineTool, runAgentTurn, ToolExecutor } from "./index.js";
import { buildStreamEvents, fakeModel } from "./testing/index.js";

it("README quick start", async () => {
  const addToCart = defineTool({
    name: "add_to_cart",
    description: "Adds a product to the cart.",
    input: z.object({ sku: z.string(), quantity: z.number().int().min(1).max(10) }),
    run: async ({ sku, quantity }, { signal }) => {
      signal.throwIfAborted(); // ... then write to your database, passing `signal` along ...
      return { text: `Added ${quantity} x ${sku}.`, events: [{ type: "cart-updated", sku }] };
    },
  });

  // Any ModelClient works: overlap's provider adapters, or this fake for tests.
  const model = fakeModel([
    buildStreamEvents([
      { type: "text", text: "Adding it now." },
      {
        type: "tool_use",
        id: "toolu_1",
        name: "add_to_cart",
        input: { sku: "AERO-1", quantity: 1 },
      },
    ]),
    buildStreamEvents([{ type: "text", text: "Done: the Aero is in your cart." }]),
  ]);

  const log: string[] = [];
  const turn = await runAgentTurn({
    model,
    executor: new ToolExecutor([addToCart]),
    messages: [{ role: "user", content: "Put the Aero trail runner in my cart" }],
    sink: (event) => {
      // text-delta, tool-call-start, tool-input-preview, tool-call, tool-status, ui, tool-result...
      if (event.type === "tool-status") log.push(`${event.callId} ${event.status}`);
    },
  });
  expect(turn.stopReason).toBe("end_turn");
  expect(log).toEqual(["toolu_1 running", "toolu_1 done"]);
  expect(turn.messages).toHaveLength(4); // user, assistant(tool_use), user(tool_result), assistant
});
