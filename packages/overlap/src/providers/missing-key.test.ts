import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { openaiChatModel } from "./openai/openai.js";
import { openaiResponsesModel } from "./openai/openai-responses.js";

/** The variables the SDKs read a key (or an address) from. */
const VARIABLES = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "OPENAI_ADMIN_KEY",
  "ANTHROPIC_BASE_URL",
  "OPENAI_BASE_URL",
];

describe("a model made without a key", () => {
  const saved: Record<string, string | undefined> = {};
  beforeEach(() => {
    for (const name of VARIABLES) {
      saved[name] = process.env[name];
      delete process.env[name];
    }
  });
  afterEach(() => {
    for (const name of VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });

  it.each([
    ["anthropicModel", () => anthropicModel({ model: "claude-sonnet-4-5" })],
    ["openaiChatModel", () => openaiChatModel({ model: "gpt-4.1" })],
    ["openaiResponsesModel", () => openaiResponsesModel({ model: "gpt-5-mini" })],
  ])(
    "%s is made without throwing; its turn ends with an authentication error",
    async (_name, make) => {
      const model = make();
      const turn = await runAgentTurn({
        model,
        executor: new ToolExecutor([]),
        messages: [{ role: "user", content: "hi" }],
        retry: { maxRetries: 0 },
        sink: () => {},
      });
      expect(turn.stopReason).toBe("error");
      expect(turn.error?.code).toBe("provider_error");
      expect(turn.error?.category).toBe("authentication");
      expect(turn.error?.publicMessage).toContain("credentials");
      // The conversation is the one given, ready for the next try.
      expect(turn.messages).toEqual([{ role: "user", content: "hi" }]);
    },
  );
});
