// An AI_SDK_MODEL_MODULE for the tests: a function of the environment returning an AI SDK
// LanguageModelV3 (here a minimal one answering with one text part; users return a real
// provider's model, e.g. createMistral()("mistral-large-latest")).
export default (env) => ({
  specificationVersion: "v3",
  provider: "fixture",
  modelId: env.FIXTURE_MODEL_ID ?? "fixture-model",
  supportedUrls: {},
  async doGenerate() {
    throw new Error("not used");
  },
  async doStream() {
    const parts = [
      { type: "stream-start", warnings: [] },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Hello from the module." },
      { type: "text-end", id: "t" },
      {
        type: "finish",
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
      },
    ];
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  },
});
