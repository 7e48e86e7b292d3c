/**
 * A provider-side web search with cited text, in each wire format overlap-sim speaks, read through
 * overlap's adapters: the provider's blocks are kept in the assistant message in stream order,
 * the citations sit on the text they belong to, the client call beside them runs once, and the
 * next request carries the provider's content back the way that API expects (the strict sim
 * accepts it).
 */

import Anthropic from "@anthropic-ai/sdk";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import OpenAI from "openai";
import type { SimPolicy, SimRequest, SimScript } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelClient } from "../agent/model-client.js";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import { initialAgentState } from "../client/agent-state.js";
import { reduceAgentEvent } from "../client/reduce-agent-event.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { AssistantContentBlock, TextBlock } from "../stream/message.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { anthropicModel } from "./anthropic/anthropic.js";
import { bedrockModel } from "./bedrock/bedrock.js";
import { geminiModel } from "./google/google.js";
import { openaiChatModel, openaiResponsesModel } from "./openai/openai.js";
import { simRunner } from "./provider-sim.testkit.js";

type Json = Record<string, unknown>;

const RESULTS = Array.from({ length: 6 }, (_, i) => ({
  title: `Review ${i + 1} of the Aero trail runner`,
  url: `https://reviews${i + 1}.example/aero-trail-runner`,
}));

const CITED = [RESULTS[0]!, RESULTS[3]!].map((r) => ({ ...r, citedText: `${r.title}: light.` }));

/** A search, its six results, a client call, then the text citing two of the results. */
const FIRST: SimScript = {
  blocks: [
    { type: "server_tool_use", name: "web_search", input: { query: "Aero trail runner reviews" } },
    { type: "web_search_tool_result", results: RESULTS },
    { type: "tool_use", name: "add_to_cart", input: { sku: "SKU-42" } },
    { type: "text", text: "Reviewers find the Aero light and grippy.", citations: CITED },
  ],
};

/** What each request offered, as the policy saw it. */
const offered: Array<SimRequest["providerTools"]> = [];

const policy: SimPolicy = (request) => {
  offered.push(request.providerTools);
  const last = request.messages.at(-1);
  const answered =
    Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  return answered ? { blocks: [{ type: "text", text: "Added." }] } : FIRST;
};

const withSim = simRunner({ policy, pacing: { fast: true } });

async function turnOf(model: ModelClient) {
  const runs: unknown[] = [];
  const executor = new ToolExecutor(
    [
      defineTool({
        name: "add_to_cart",
        description: "Adds a product to the cart.",
        input: z.object({ sku: z.string() }),
        run: (input) => {
          runs.push(input);
          return "added";
        },
      }),
    ],
    { abortGraceMs: 5 },
  );
  const events: AgentEvent[] = [];
  offered.length = 0;
  const turn = await runAgentTurn({
    model,
    executor,
    messages: [{ role: "user", content: "What do reviews say about the Aero trail runner?" }],
    sink: (e) => events.push(e),
  });
  expect(turn.error?.message).toBeUndefined();
  expect(turn.stopReason).toBe("end_turn");
  expect(turn.rounds).toHaveLength(2);
  expect(runs).toEqual([{ sku: "SKU-42" }]);
  expect(validateConversation(turn.messages)).toEqual([]);
  const content = turn.rounds[0]!.assistant.content;
  const text = textOf(content);
  // The page's view: one `citations` event for the cited text, folded onto its text item.
  const cited = events.filter((e) => e.type === "citations");
  expect(cited).toEqual([
    {
      type: "citations",
      round: 1,
      index: content.indexOf(text),
      citations: CITED.map((c) => expect.objectContaining({ url: c.url })),
    },
  ]);
  let state = initialAgentState();
  for (const event of events) state = reduceAgentEvent(state, { id: undefined, event });
  const items = state.turns.flatMap((t) => (t.role === "assistant" ? t.items : []));
  const shown = items.find((i) => i.kind === "text" && i.text === text.text);
  expect(shown?.kind === "text" && shown.citations).toEqual(
    cited[0]?.type === "citations" && cited[0].citations,
  );
  return { content, events, text };
}

function textOf(content: readonly AssistantContentBlock[]): TextBlock {
  const text = content.find((b): b is TextBlock => b.type === "text");
  expect(text?.text).toBe("Reviewers find the Aero light and grippy.");
  return text!;
}

/** A fetch that keeps each request's JSON body. */
function capture(bodies: Json[]): typeof fetch {
  return async (url, init) => {
    bodies.push(JSON.parse(String(init?.body)) as Json);
    return fetch(url, init);
  };
}

function serverToolEvents(events: readonly AgentEvent[]) {
  return events.flatMap((e) => (e.type === "server-tool" ? [e] : []));
}

describe("a provider's web search and its citations in every format overlap-sim speaks", () => {
  it("Messages API: the web_search tool beside the client tools; server_tool_use + web_search_tool_result kept, web_search_result_location citations on the text, all sent back", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const client = new Anthropic({
        baseURL: sim.url,
        apiKey: "test",
        maxRetries: 0,
        fetch: capture(bodies),
      });
      const { content, events, text } = await turnOf(
        anthropicModel({
          client,
          model: "scripted-claude",
          providerTools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }],
        }),
      );
      expect(offered).toEqual([["web_search"], ["web_search"]]);
      expect(bodies[0]?.tools).toEqual([
        expect.objectContaining({ name: "add_to_cart", eager_input_streaming: true }),
        { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      ]);
      expect(content.map((b) => b.type)).toEqual([
        "server_tool_use",
        "web_search_tool_result",
        "tool_use",
        "text",
      ]);
      expect(text.citations).toEqual(
        CITED.map((c) => ({
          type: "web_search_result_location",
          url: c.url,
          title: c.title,
          cited_text: c.citedText,
          encrypted_index: expect.any(String),
        })),
      );
      const shown = serverToolEvents(events);
      expect(shown.map((e) => e.phase)).toEqual(["call", "result"]);
      expect(shown[0]?.input).toEqual({ query: "Aero trail runner reviews" });
      expect(shown[1]?.result).toHaveLength(6);
      const assistant = ((bodies[1]?.messages ?? []) as Json[])[1]!;
      expect((assistant.content as Json[]).map((b) => b.type)).toEqual([
        "server_tool_use",
        "web_search_tool_result",
        "tool_use",
        "text",
      ]);
      expect((assistant.content as Json[])[3]?.citations).toEqual(text.citations);
    });
  });

  it("Responses API: the web_search_call (with its sources) kept and sent back in place, url_citation annotations on the text and sent back", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const client = new OpenAI({
        baseURL: `${sim.url}/v1`,
        apiKey: "test",
        maxRetries: 0,
        fetch: capture(bodies),
      });
      const { content, events, text } = await turnOf(
        openaiResponsesModel({
          client,
          model: "scripted-gpt",
          providerTools: [{ type: "web_search" }],
          params: { include: ["web_search_call.action.sources"] },
        }),
      );
      expect(offered).toEqual([["web_search"], ["web_search"]]);
      expect(content.map((b) => b.type)).toEqual([
        "server_tool_use",
        "openai_tool_result",
        "tool_use",
        "text",
      ]);
      expect(text.citations?.map((c) => [c.type, (c as Json).url])).toEqual(
        CITED.map((c) => ["url_citation", c.url]),
      );
      expect(serverToolEvents(events).map((e) => e.phase)).toEqual(["call", "result"]);
      const input = bodies[1]?.input as Json[];
      const search = input.find((i) => i.type === "web_search_call")!;
      expect(search).toMatchObject({
        status: "completed",
        action: {
          type: "search",
          query: "Aero trail runner reviews",
          sources: RESULTS.map((r) => ({ type: "url", url: r.url })),
        },
      });
      const message = input.find((i) => i.type === "message" && i.role === "assistant")!;
      const part = (message.content as Json[])[0]!;
      expect((part.annotations as Json[]).map((a) => a.url)).toEqual(CITED.map((c) => c.url));
    });
  });

  it("Gemini: googleSearch beside the function declarations; grounding supports are citations on the text, the metadata kept whole (queries, six chunks)", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const { content, events, text } = await turnOf(
        geminiModel({
          model: "scripted-gemini",
          baseUrl: sim.url,
          apiKey: "test",
          fetch: capture(bodies),
          providerTools: [{ googleSearch: {} }],
        }),
      );
      expect(offered).toEqual([["web_search"], ["web_search"]]);
      expect(content.map((b) => b.type)).toEqual(["tool_use", "text", "gemini_grounding_metadata"]);
      // Google titles a grounding chunk with the page's domain.
      expect(text.citations?.map((c) => [c.type, (c as Json).url, (c as Json).title])).toEqual(
        CITED.map((c) => ["gemini_grounding", c.url, new URL(c.url).hostname]),
      );
      expect(text.citations?.[0]).toMatchObject({ start_index: 0, end_index: text.text.length });
      const metadata = (content[2] as unknown as { metadata: Json }).metadata;
      expect(metadata.webSearchQueries).toEqual(["Aero trail runner reviews"]);
      expect(metadata.groundingChunks).toHaveLength(6);
      // Google Search grounding streams no call: nothing to show as a provider tool.
      expect(serverToolEvents(events)).toEqual([]);
      const model = ((bodies[1]?.contents ?? []) as Json[]).find((c) => c.role === "model")!;
      expect((model.parts as Json[]).some((p) => p.text === text.text)).toBe(true);
    });
  });

  it("Chat Completions: url_citation annotations after the text are citations on it (never sent back: the API takes none)", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const client = new OpenAI({
        baseURL: `${sim.url}/v1`,
        apiKey: "test",
        maxRetries: 0,
        fetch: capture(bodies),
      });
      const { content, text } = await turnOf(openaiChatModel({ client, model: "scripted-gpt" }));
      expect(content.map((b) => b.type)).toEqual(["tool_use", "text"]);
      expect(text.citations).toEqual(
        CITED.map((c) => ({
          type: "chat_url_citation",
          url: c.url,
          title: c.title,
          start_index: 0,
          end_index: text.text.length,
        })),
      );
      const assistant = ((bodies[1]?.messages ?? []) as Json[]).find(
        (m) => m.role === "assistant",
      )!;
      expect(assistant.annotations).toBeUndefined();
      expect(assistant.content).toBe(text.text);
    });
  });

  it("Bedrock: nova_grounding beside the toolSpecs; citation deltas are citations on the text, sent back as citationsContent", async () => {
    await withSim({}, async (sim) => {
      const bodies: Json[] = [];
      const client = new BedrockRuntimeClient({
        region: "us-east-1",
        endpoint: sim.url,
        credentials: { accessKeyId: "x", secretAccessKey: "x" },
        requestHandler: new NodeHttpHandler(),
        maxAttempts: 1,
      });
      client.middlewareStack.add(
        (next) => (args) => {
          const body = (args.request as { body?: unknown }).body;
          if (typeof body === "string") bodies.push(JSON.parse(body) as Json);
          else if (body instanceof Uint8Array) {
            bodies.push(JSON.parse(new TextDecoder().decode(body)) as Json);
          }
          return next(args);
        },
        { step: "finalizeRequest", name: "captureBody" },
      );
      const { content, text } = await turnOf(
        bedrockModel({
          client,
          modelId: "scripted-nova",
          providerTools: [{ systemTool: { name: "nova_grounding" } }],
        }),
      );
      expect(offered).toEqual([["web_search"], ["web_search"]]);
      expect(content.map((b) => b.type)).toEqual(["tool_use", "text"]);
      const citations = CITED.map((c) => ({
        title: c.title,
        sourceContent: [{ text: c.citedText }],
        location: { web: { url: c.url, domain: new URL(c.url).hostname } },
      }));
      expect(text.citations).toEqual(citations.map((c) => ({ type: "bedrock_citation", ...c })));
      const assistant = ((bodies[1]?.messages ?? []) as Json[]).find(
        (m) => m.role === "assistant",
      )!;
      expect((assistant.content as Json[])[1]).toEqual({
        citationsContent: { content: [{ text: text.text }], citations },
      });
    });
  });
});
