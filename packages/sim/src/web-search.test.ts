import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { providerToolsOffered } from "./provider-tools-offered.js";
import type { SimScript } from "./script.js";
import type { SimRequest } from "./sim-request.js";
import { parseSse, rawPost, startTestSim } from "./test-support.js";

type Json = Record<string, unknown>;

const RESULTS = [
  { title: "Trail review", url: "https://trail.example/aero" },
  { title: "Runner's notes", url: "https://notes.example/aero" },
];

/** A text before the search, the search, then a text citing both results (with a non-ASCII word). */
const SCRIPT: SimScript = {
  blocks: [
    { type: "text", text: "Looking — " },
    { type: "server_tool_use", name: "web_search", input: { query: "aero reviews" } },
    { type: "web_search_tool_result", results: RESULTS },
    {
      type: "text",
      text: "Reviewers call it light.",
      citations: RESULTS.map((r) => ({ ...r, citedText: `${r.title} says light` })),
    },
  ],
};

const seen: SimRequest[] = [];
const sim = await startTestSim({
  policy: (request) => {
    seen.push(request);
    return SCRIPT;
  },
});

describe("web search and citations in the wire formats", () => {
  it("Messages API: the cited text starts with citations: [] and its citations_delta events come before its text", async () => {
    const answer = await rawPost(`${sim.url}/v1/messages`, {
      model: "claude-x",
      max_tokens: 200,
      stream: true,
      tools: [{ type: "web_search_20250305", name: "web_search" }],
      messages: [{ role: "user", content: "What do reviews say?" }],
    });
    const events = parseSse(answer.text).map((f) => JSON.parse(f.data) as Json);
    const ofBlock = (index: number) => events.filter((e) => e.index === index);
    const cited = ofBlock(3);
    expect(cited[0]).toEqual({
      type: "content_block_start",
      index: 3,
      content_block: { citations: [], type: "text", text: "" },
    });
    const deltas = cited.map((e) => (e.delta as Json | undefined)?.type);
    expect(deltas.slice(1, 3)).toEqual(["citations_delta", "citations_delta"]);
    expect(deltas.slice(3, -1).every((t) => t === "text_delta")).toBe(true);
    // The uncited text has no citations field at all.
    expect(ofBlock(0)[0]?.content_block).toEqual({ type: "text", text: "" });
    expect(seen.at(-1)?.providerTools).toEqual(["web_search"]);
  });

  it("Messages API: a web search citation sent back without its encrypted_index is refused, as the API does", async () => {
    const client = new Anthropic({ baseURL: sim.url, apiKey: "test", maxRetries: 0 });
    const message = await client.messages.create({
      model: "claude-x",
      max_tokens: 200,
      messages: [{ role: "user", content: "What do reviews say?" }],
    });
    const next = (content: unknown) =>
      rawPost(`${sim.url}/v1/messages`, {
        model: "claude-x",
        max_tokens: 200,
        messages: [
          { role: "user", content: "What do reviews say?" },
          { role: "assistant", content },
          { role: "user", content: "Thanks." },
        ],
      });
    expect((await next(message.content)).status).toBe(200);
    const text = message.content[3] as unknown as Json;
    const [first, ...rest] = text.citations as Json[];
    const { encrypted_index: _dropped, ...stripped } = first!;
    const broken = message.content.with(3, {
      ...text,
      citations: [stripped, ...rest],
    } as never);
    const refused = await next(broken);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain(
      "messages.1.content.3.text.citations.0.web_search_result_location.encrypted_index: Field required",
    );
  });

  it("Chat Completions: the search sends nothing of its own; the cited text's url_citation annotations come in a delta after it, indexed in the whole content", async () => {
    const body = {
      model: "gpt-4o-search-preview",
      web_search_options: {},
      messages: [{ role: "user", content: "What do reviews say?" }],
    };
    const answer = await rawPost(`${sim.url}/v1/chat/completions`, { ...body, stream: true });
    const chunks = parseSse(answer.text)
      .filter((f) => f.data !== "[DONE]")
      .map((f) => JSON.parse(f.data) as Json);
    const deltas = chunks.map((c) => ((c.choices as Json[])[0]?.delta ?? {}) as Json);
    const content = deltas.map((d) => (typeof d.content === "string" ? d.content : "")).join("");
    expect(content).toBe("Looking — Reviewers call it light.");
    const annotated = deltas.filter((d) => d.annotations !== undefined);
    expect(annotated).toHaveLength(1);
    const start = "Looking — ".length;
    const expected = RESULTS.map((r) => ({
      type: "url_citation",
      url_citation: { end_index: content.length, start_index: start, title: r.title, url: r.url },
    }));
    expect(annotated[0]?.annotations).toEqual(expected);
    // The annotations follow the text they cite.
    const at = deltas.indexOf(annotated[0]!);
    expect(deltas.slice(at + 1).some((d) => typeof d.content === "string")).toBe(false);
    const client = new OpenAI({ baseURL: `${sim.url}/v1`, apiKey: "test", maxRetries: 0 });
    const whole = await client.chat.completions.create(body as never);
    expect((whole as unknown as { choices: { message: Json }[] }).choices[0]?.message).toEqual(
      expect.objectContaining({ content, annotations: expected }),
    );
    expect(seen.at(-1)?.providerTools).toEqual(["web_search"]);
  });

  it("Gemini: the grounding segments count UTF-8 bytes of the answer's text", async () => {
    const answer = await rawPost(
      `${sim.url}/v1beta/models/scripted-x:streamGenerateContent?alt=sse`,
      {
        contents: [{ role: "user", parts: [{ text: "What do reviews say?" }] }],
        tools: [{ googleSearch: {} }],
      },
    );
    const chunks = parseSse(answer.text).map((f) => JSON.parse(f.data) as Json);
    const candidates = chunks.map((c) => (c.candidates as Json[])[0]!);
    const text = candidates
      .flatMap((c) => ((c.content as Json | undefined)?.parts as Json[] | undefined) ?? [])
      .map((p) => (typeof p.text === "string" ? p.text : ""))
      .join("");
    const grounded = candidates.filter((c) => c.groundingMetadata !== undefined);
    expect(grounded).toHaveLength(1);
    expect(grounded[0]).toBe(candidates.at(-1));
    const metadata = grounded[0]!.groundingMetadata as Json;
    const start = Buffer.byteLength("Looking — ");
    expect(metadata.groundingSupports).toEqual([
      {
        segment: {
          startIndex: start,
          endIndex: Buffer.byteLength(text),
          text: "Reviewers call it light.",
        },
        groundingChunkIndices: [0, 1],
      },
    ]);
    expect(metadata.groundingChunks).toEqual([
      { web: { uri: RESULTS[0]!.url, title: "trail.example" } },
      { web: { uri: RESULTS[1]!.url, title: "notes.example" } },
    ]);
    expect(metadata.webSearchQueries).toEqual(["aero reviews"]);
    expect(seen.at(-1)?.providerTools).toEqual(["web_search"]);
  });

  it("names the provider tools a request offers, in every format, client tools left out", () => {
    const fn = { name: "f", description: "", input_schema: { type: "object" } };
    expect(
      providerToolsOffered("anthropic", {
        tools: [fn, { type: "web_search_20250305", name: "web_search" }],
      }),
    ).toEqual(["web_search"]);
    expect(
      providerToolsOffered("responses", {
        tools: [
          { type: "function", name: "f" },
          { type: "code_interpreter" },
          { type: "web_search" },
        ],
      }),
    ).toEqual(["code_execution", "web_search"]);
    expect(
      providerToolsOffered("gemini", {
        tools: [{ functionDeclarations: [] }, { codeExecution: {} }, { googleSearch: {} }],
      }),
    ).toEqual(["code_execution", "web_search"]);
    expect(
      providerToolsOffered("bedrock", {
        toolConfig: { tools: [{ toolSpec: {} }, { systemTool: { name: "nova_grounding" } }] },
      }),
    ).toEqual(["web_search"]);
    expect(providerToolsOffered("openai", { tools: [{ type: "function" }] })).toEqual([]);
  });
});
