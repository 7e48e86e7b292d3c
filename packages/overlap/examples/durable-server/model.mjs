/**
 * The model, from the environment: Claude (or any server speaking the Messages API) with
 * ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, an OpenAI-compatible Chat Completions server with
 * OPENAI_API_KEY / OPENAI_BASE_URL, and otherwise the repository's scripted model (overlap-sim)
 * started in this process: a script, not a language model, so the example runs with no key.
 */

/** Resolves to `{ model, label, close }`. */
export async function modelFromEnv(env = process.env) {
  if (env.ANTHROPIC_API_KEY || env.ANTHROPIC_BASE_URL) {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const { anthropicModel } = await import("overlap-runtime/anthropic");
    const name = env.MODEL ?? "claude-sonnet-4-5";
    const client = new Anthropic({
      apiKey: env.ANTHROPIC_API_KEY ?? "not-needed",
      ...(env.ANTHROPIC_BASE_URL ? { baseURL: env.ANTHROPIC_BASE_URL } : {}),
    });
    return { model: anthropicModel({ client, model: name }), label: `anthropic ${name}` };
  }
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    const { default: OpenAI } = await import("openai");
    const { openaiChatModel } = await import("overlap-runtime/openai");
    const name = env.MODEL ?? "gpt-4o-mini";
    const client = new OpenAI({
      apiKey: env.OPENAI_API_KEY ?? "not-needed",
      ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    });
    return { model: openaiChatModel({ client, model: name }), label: `openai ${name}` };
  }
  // No key: the scripted model of the repository (overlap-sim, a dev dependency), on a free port.
  const [{ default: Anthropic }, { anthropicModel }, { startSim }] = await Promise.all([
    import("@anthropic-ai/sdk"),
    import("overlap-runtime/anthropic"),
    import("overlap-sim"),
  ]);
  const sim = await startSim();
  const client = new Anthropic({ baseURL: sim.url, apiKey: "scripted", maxRetries: 0 });
  return {
    model: anthropicModel({ client, model: "scripted-sim" }),
    label: "scripted model (overlap-sim, not a language model)",
    close: () => sim.close(),
  };
}
