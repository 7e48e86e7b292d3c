/**
 * Which model the shop talks to, from the environment:
 * - `ANTHROPIC_API_KEY`: Claude through the Messages API;
 * - `OPENAI_BASE_URL` or `OPENAI_API_KEY`: an OpenAI-compatible server, over Chat Completions or,
 *   with `OPENAI_API=responses`, the Responses API;
 * - `GEMINI_API_KEY` or `GOOGLE_API_KEY`: Gemini (`streamGenerateContent`);
 * - `BEDROCK_MODEL_ID`: AWS Bedrock ConverseStream (region and credentials from the AWS SDK's
 *   usual chain: `AWS_REGION`, `AWS_PROFILE`, `AWS_ACCESS_KEY_ID`...);
 * - `AI_SDK_MODEL_MODULE`: any Vercel AI SDK provider model (`LanguageModelV3`), through
 *   `aiSdkModel`: a module whose default export is the model, or a function of the environment
 *   returning it (e.g. `export default () => createMistral()("mistral-large-latest")`);
 * - otherwise the embedded scripted model, started in-process and reached over HTTP through the
 *   very same adapters, so the code path is the one a real key would take. `SCRIPTED_API` picks
 *   the wire format it speaks (`anthropic`, the default; `chat`; `responses`; `gemini`; `bedrock`; `ai-sdk`: the AI SDK's
 *   Anthropic provider through `aiSdkModel`).
 */

import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { ModelClient } from "overlap-runtime";
import { anthropicModel } from "overlap-runtime/anthropic";
import { geminiModel } from "overlap-runtime/google";
import { nodeHttpFetch } from "overlap-runtime/node";
import { openaiChatModel, openaiResponsesModel } from "overlap-runtime/openai";
import { type Pacing, type SimPolicy, startSim } from "overlap-sim";
import { demoSimFetch } from "../demo/demo-scope.js";

/** The wire formats the shop can talk. */
export type ShopModelApi = "anthropic" | "chat" | "responses" | "gemini" | "bedrock" | "ai-sdk";

/** The model the shop uses, and how to describe it honestly to users. */
export interface ShopModel {
  model: ModelClient;
  /** What the UI shows: the model name, e.g. "claude-sonnet-4-5" or "scripted-shop". */
  label: string;
  provider: "anthropic" | "openai" | "google" | "aws" | "ai-sdk" | "scripted";
  /** The wire format spoken. */
  api: ShopModelApi;
  /** True for the embedded scripted model: the UI shows a badge saying so. */
  scripted: boolean;
  /**
   * The model obeys the demo drawer's speed and "break the next reply": the embedded scripted
   * model, whose clients send the turn's demo headers (`demoSimFetch`). Never a real provider.
   */
  demoControls?: boolean;
  /**
   * Where a Messages API client reaches the same model (`ANTHROPIC_API_KEY`, or the embedded
   * model, which answers `/v1/messages` whatever `SCRIPTED_API` says): what the whole-response
   * path (`OVERLAP_PATH=whole`) runs on. Absent for the other providers.
   */
  messagesApi?: MessagesApiEndpoint;
  /** Stops the embedded server, if any. */
  close(): Promise<void>;
}

/** A Messages API endpoint: base URL (the API's own when absent), key and model name. */
export interface MessagesApiEndpoint {
  baseUrl?: string;
  apiKey: string;
  model: string;
}

/** Options of {@link modelFromEnv}. */
export interface ModelFromEnvOptions {
  env?: NodeJS.ProcessEnv;
  /** The scripted model's policy (the shop's own). */
  policy: SimPolicy;
  /** The scripted model's pacing; by default it paces like a real model. */
  pacing?: Partial<Pacing>;
}

const SCRIPTED_APIS: readonly ShopModelApi[] = [
  "anthropic",
  "chat",
  "responses",
  "gemini",
  "bedrock",
  "ai-sdk",
];

/** Picks and opens the model from the environment. */
export async function modelFromEnv(options: ModelFromEnvOptions): Promise<ShopModel> {
  const env = options.env ?? process.env;
  if (env.ANTHROPIC_API_KEY) {
    const model = env.MODEL ?? "claude-sonnet-4-5";
    const client = new Anthropic({
      apiKey: env.ANTHROPIC_API_KEY,
      baseURL: env.ANTHROPIC_BASE_URL ?? null,
      fetch: nodeHttpFetch,
    });
    const messagesApi: MessagesApiEndpoint = {
      apiKey: env.ANTHROPIC_API_KEY,
      model,
      ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}),
    };
    return {
      ...remote(anthropicModel({ client, model }), model, "anthropic", "anthropic"),
      messagesApi,
    };
  }
  if (env.OPENAI_BASE_URL || env.OPENAI_API_KEY) {
    const api = openaiApi(env.OPENAI_API);
    const model = env.MODEL ?? "gpt-4o-mini";
    const client = new OpenAI({
      apiKey: env.OPENAI_API_KEY ?? "not-needed",
      baseURL: env.OPENAI_BASE_URL ?? null,
      fetch: nodeHttpFetch,
    });
    const adapter =
      api === "responses"
        ? openaiResponsesModel({ client, model })
        : openaiChatModel({ client, model });
    return remote(adapter, model, "openai", api);
  }
  const googleKey = env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY;
  if (googleKey) {
    const model = env.MODEL ?? "gemini-2.5-flash";
    const adapter = geminiModel({
      model,
      apiKey: googleKey,
      fetch: nodeHttpFetch,
      ...(env.GEMINI_BASE_URL ? { baseUrl: env.GEMINI_BASE_URL } : {}),
    });
    return remote(adapter, model, "google", "gemini");
  }
  if (env.BEDROCK_MODEL_ID) {
    const { bedrockModel } = await import("overlap-runtime/bedrock");
    const adapter = bedrockModel({
      modelId: env.BEDROCK_MODEL_ID,
      ...(env.AWS_REGION ? { region: env.AWS_REGION } : {}),
    });
    return remote(adapter, env.BEDROCK_MODEL_ID, "aws", "bedrock");
  }
  if (env.AI_SDK_MODEL_MODULE) {
    const model = await aiSdkModelFromModule(env.AI_SDK_MODEL_MODULE, env);
    return remote(model, model.label ?? "ai-sdk", "ai-sdk", "ai-sdk");
  }
  return scriptedModel(options, scriptedApi(env.SCRIPTED_API));
}

/**
 * The embedded scripted model speaking `api`. maxRetries 0: the server is local; a failure is a
 * fault to show, not to hide. Where the API has a web search the provider runs beside function
 * tools (Messages `web_search`, Responses `web_search`, Gemini `googleSearch`, Bedrock
 * `nova_grounding`), the shop offers it as a provider tool, and the script uses it for what the
 * web says about a product (`web-lookup.ts`); Chat Completions and the AI SDK path offer none.
 */
async function scriptedModel(options: ModelFromEnvOptions, api: ShopModelApi): Promise<ShopModel> {
  const sim = await startSim({
    policy: options.policy,
    ...(options.pacing ? { pacing: options.pacing } : {}),
  });
  const label = "scripted-shop";
  // The demo drawer's headers (speed, a fault) go to the embedded model only: `demoSimFetch`.
  const openai = () =>
    new OpenAI({
      apiKey: "scripted",
      baseURL: `${sim.url}/v1`,
      maxRetries: 0,
      fetch: demoSimFetch,
    });
  let model: ModelClient;
  switch (api) {
    case "chat":
      model = openaiChatModel({ client: openai(), model: label });
      break;
    case "responses":
      model = openaiResponsesModel({
        client: openai(),
        model: label,
        providerTools: [{ type: "web_search" }],
        providerOptions: { include: ["web_search_call.action.sources"] },
      });
      break;
    case "gemini":
      model = geminiModel({
        model: label,
        apiKey: "scripted",
        baseUrl: sim.url,
        maxRetries: 0,
        fetch: demoSimFetch,
        providerTools: [{ googleSearch: {} }],
      });
      break;
    case "bedrock":
      model = await scriptedBedrock(sim.url, label);
      break;
    case "ai-sdk": {
      const [{ createAnthropic }, { aiSdkModel }] = await Promise.all([
        import("@ai-sdk/anthropic"),
        import("overlap-runtime/ai-sdk"),
      ]);
      const provider = createAnthropic({
        apiKey: "scripted",
        baseURL: `${sim.url}/v1`,
        fetch: demoSimFetch,
      });
      model = aiSdkModel(provider(label), { maxRetries: 0 });
      break;
    }
    default:
      model = anthropicModel({
        client: new Anthropic({
          apiKey: "scripted",
          baseURL: sim.url,
          maxRetries: 0,
          fetch: demoSimFetch,
        }),
        model: label,
        providerTools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }],
      });
  }
  return {
    model,
    label,
    provider: "scripted",
    api,
    scripted: true,
    // Bedrock's AWS client takes no fetch: no demo headers there.
    demoControls: api !== "bedrock",
    messagesApi: { baseUrl: sim.url, apiKey: "scripted", model: label },
    close: () => sim.close(),
  };
}

/**
 * Bedrock against the scripted model: the AWS SDK and its HTTP/1.1 handler (the sim does not speak
 * HTTP/2) are loaded only when asked for; the credentials are placeholders the sim ignores.
 */
async function scriptedBedrock(url: string, label: string): Promise<ModelClient> {
  const [{ BedrockRuntimeClient }, { NodeHttpHandler }, { bedrockModel }] = await Promise.all([
    import("@aws-sdk/client-bedrock-runtime"),
    import("@smithy/node-http-handler"),
    import("overlap-runtime/bedrock"),
  ]);
  const client = new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint: url,
    credentials: { accessKeyId: "scripted", secretAccessKey: "scripted" },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  return bedrockModel({
    client,
    modelId: label,
    providerTools: [{ systemTool: { name: "nova_grounding" } }],
  });
}

/** The AI SDK model a user's module provides (see the module comment). */
async function aiSdkModelFromModule(
  specifier: string,
  env: NodeJS.ProcessEnv,
): Promise<ModelClient> {
  const [{ pathToFileURL }, { resolve }, { aiSdkModel }] = await Promise.all([
    import("node:url"),
    import("node:path"),
    import("overlap-runtime/ai-sdk"),
  ]);
  const url = /^[./]/.test(specifier) ? pathToFileURL(resolve(specifier)).href : specifier;
  const exported: unknown = (await import(url)).default;
  const model = typeof exported === "function" ? await exported(env) : exported;
  if (model === null || typeof model !== "object" || !("doStream" in model)) {
    throw new Error(
      `AI_SDK_MODEL_MODULE (${specifier}) must export by default an AI SDK language model, or a function returning one.`,
    );
  }
  return aiSdkModel(model as Parameters<typeof aiSdkModel>[0]);
}

function remote(
  model: ModelClient,
  label: string,
  provider: ShopModel["provider"],
  api: ShopModelApi,
): ShopModel {
  return { model, label, provider, api, scripted: false, close: async () => {} };
}

function openaiApi(value: string | undefined): "chat" | "responses" {
  if (value === undefined || value === "" || value === "chat") return "chat";
  if (value === "responses") return "responses";
  throw new Error(`OPENAI_API must be "chat" or "responses", not "${value}".`);
}

function scriptedApi(value: string | undefined): ShopModelApi {
  if (value === undefined || value === "") return "anthropic";
  if ((SCRIPTED_APIS as readonly string[]).includes(value)) return value as ShopModelApi;
  throw new Error(`SCRIPTED_API must be one of ${SCRIPTED_APIS.join(", ")}, not "${value}".`);
}
