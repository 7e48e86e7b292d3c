/**
 * The recorded Gemini `streamGenerateContent` and Bedrock `ConverseStream` conversations of
 * `formats/` in the recordings' directory (`OVERLAP_REALSTREAMS_DIR`, else `../shared/realstreams`
 * beside the repository; read in place, never copied; see `realstreams.test.ts` for the Anthropic,
 * Chat Completions and Responses ones), replayed through `geminiModel` (a fake `fetch`) and
 * `bedrockModel` (the AWS SDK's client with a request handler that answers the recorded bytes) and
 * `runAgentTurn`: response K answers the K-th request. The bytes are delivered whole, one byte
 * per read, and in two seeded random chunkings (1..64 and 1..512 bytes per read).
 *
 * The truth is each fixture's `expected.json` (read off the bytes by the recordings' authors) and
 * the recorded parts / events themselves, decoded here independently of the adapters (SSE `data:`
 * lines; the AWS event stream's frames). Per fixture and chunking, each round must give the
 * recording's text, thinking, client calls (ids when the API gave them), stop reason and usage;
 * every provider-side part or block (Gemini `executableCode` / `codeExecutionResult`, Bedrock's
 * `server_tool_use` and its `toolResult`) kept as a server tool block, in order, shown as
 * `server-tool` events and never run; every grounding support a citation on its text (its
 * `cited_text` the text it spans); every thought signature kept; and the next request built from
 * the resulting conversation (`geminiRequestBody` / `converseStreamInput`) must hold every
 * recorded provider part or block again, as received and in order, with every signature in order
 * (also in the requests the turn itself sent).
 */

import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runAgentTurn } from "../agent/run-agent-turn.js";
import { validateConversation } from "../agent/validate-conversation.js";
import type { AgentEvent } from "../protocol/agent-event.js";
import type { Message, UserMessage } from "../stream/message.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { bedrockModel, converseStreamInput } from "./bedrock/bedrock.js";
import { geminiModel, geminiRequestBody } from "./google/google.js";
import {
  type Chunking,
  deliveries,
  REALSTREAMS_DIR,
  recordedFetch,
} from "./realstreams.testkit.js";

const FORMATS = resolve(REALSTREAMS_DIR, "formats");

type Json = Record<string, unknown>;

/** One response of an `expected.json` (see formats/README.md). */
interface ExpectedRound {
  text: string[];
  thinking: string;
  calls: Array<{ id?: string; name: string; input: unknown }>;
  server: Array<{ type: string; id: string; name?: string }>;
  stop: string | null;
  error: { type: string; message: string } | null;
  usage: { input: number; output: number } | null;
  /** Gemini: parts carrying a thoughtSignature; Bedrock: signed reasoning blocks. */
  signatures: number;
  /** Gemini: the signature of each call (null without one). */
  callSignatures?: Array<string | null>;
  /** Bedrock: redacted reasoning blocks. */
  redacted?: number;
}

interface Fixture {
  name: string;
  format: "gemini" | "bedrock";
  bodies: Uint8Array[];
  expected: ExpectedRound[];
}

function loadFixtures(): Fixture[] | undefined {
  const manifest = resolve(FORMATS, "manifest.json");
  if (!existsSync(manifest)) return undefined;
  const entries = JSON.parse(readFileSync(manifest, "utf8")) as Array<{
    name: string;
    format: string;
    responses: string[];
  }>;
  return entries
    .filter((e) => e.format === "gemini" || e.format === "bedrock")
    .map((entry) => ({
      name: entry.name,
      format: entry.format as Fixture["format"],
      bodies: entry.responses.map((p) => new Uint8Array(readFileSync(resolve(FORMATS, p)))),
      expected: (
        JSON.parse(readFileSync(resolve(FORMATS, entry.name, "expected.json"), "utf8")) as {
          rounds: ExpectedRound[];
        }
      ).rounds,
    }));
}

// ---------------------------------------------------------------------------------------------
// The recordings decoded here, without the adapters

/** The JSON of each SSE `data:` line of a Gemini body. */
function geminiChunks(body: Uint8Array): Json[] {
  const text = new TextDecoder().decode(body);
  return text
    .split(/\r\n|\r|\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)) as Json);
}

function partsOf(chunk: Json): Json[] {
  const candidates = (chunk.candidates as Json[] | undefined) ?? [];
  const content = candidates[0]?.content as Json | undefined;
  return ((content?.parts as Json[] | undefined) ?? []).filter(isJson);
}

/** The provider-side parts of a Gemini response, as received, in order. */
function geminiProviderParts(body: Uint8Array): Json[] {
  return geminiChunks(body)
    .flatMap(partsOf)
    .filter((p) => p.executableCode !== undefined || p.codeExecutionResult !== undefined);
}

function geminiSignatures(body: Uint8Array): string[] {
  return geminiChunks(body)
    .flatMap(partsOf)
    .flatMap((p) => (typeof p.thoughtSignature === "string" ? [p.thoughtSignature] : []));
}

/** The last non-empty groundingMetadata of a Gemini response. */
function geminiGrounding(body: Uint8Array): Json | undefined {
  let found: Json | undefined;
  for (const chunk of geminiChunks(body)) {
    const candidates = (chunk.candidates as Json[] | undefined) ?? [];
    const grounding = candidates[0]?.groundingMetadata;
    if (isJson(grounding) && Object.keys(grounding).length > 0) found = grounding;
  }
  return found;
}

/** The events of an AWS event stream body: `{ [event-type]: payload }`, CRCs not checked. */
function awsEvents(body: Uint8Array): Json[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const events: Json[] = [];
  for (let at = 0; at < body.length; ) {
    const total = view.getUint32(at);
    const headersLength = view.getUint32(at + 4);
    let h = at + 12;
    const headers: Record<string, string> = {};
    while (h < at + 12 + headersLength) {
      const nameLength = body[h]!;
      const name = new TextDecoder().decode(body.subarray(h + 1, h + 1 + nameLength));
      h += 1 + nameLength;
      const type = body[h]!;
      h += 1;
      if (type !== 7) throw new Error(`header type ${type}`);
      const length = view.getUint16(h);
      headers[name] = new TextDecoder().decode(body.subarray(h + 2, h + 2 + length));
      h += 2 + length;
    }
    const payload = body.subarray(at + 12 + headersLength, at + total - 4);
    events.push({ [headers[":event-type"] ?? "?"]: JSON.parse(new TextDecoder().decode(payload)) });
    at += total;
  }
  return events;
}

/**
 * Bedrock's provider-side blocks of a response as Converse takes them back: the server
 * `toolUse` (its input parsed) and the `toolResult` (start fields and content), in block order.
 */
function bedrockProviderBlocks(body: Uint8Array): Json[] {
  const blocks = new Map<
    number,
    { kind: "use" | "result"; start: Json; input: string; content: Json[] }
  >();
  for (const event of awsEvents(body)) {
    const start = event.contentBlockStart as Json | undefined;
    if (start) {
      const at = Number(start.contentBlockIndex);
      const s = start.start as Json;
      if (isJson(s.toolUse) && s.toolUse.type === "server_tool_use") {
        blocks.set(at, { kind: "use", start: s.toolUse, input: "", content: [] });
      } else if (isJson(s.toolResult)) {
        blocks.set(at, { kind: "result", start: s.toolResult, input: "", content: [] });
      }
    }
    const delta = event.contentBlockDelta as Json | undefined;
    if (delta) {
      const block = blocks.get(Number(delta.contentBlockIndex));
      const d = delta.delta as Json;
      if (block && isJson(d.toolUse)) block.input += String(d.toolUse.input ?? "");
      if (block && Array.isArray(d.toolResult)) block.content.push(...(d.toolResult as Json[]));
    }
  }
  return [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, b]) =>
      b.kind === "use"
        ? { toolUse: { ...b.start, input: JSON.parse(b.input || "{}") } }
        : { toolResult: { ...b.start, content: b.content } },
    );
}

function bedrockCitations(body: Uint8Array): number {
  return awsEvents(body).filter(
    (e) => isJson(e.contentBlockDelta) && isJson((e.contentBlockDelta.delta as Json).citation),
  ).length;
}

function isJson(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// Delivery

const CHUNKINGS: readonly Chunking[] = [
  { label: "whole", maxChunk: undefined },
  { label: "byte by byte", maxChunk: 1 },
  { label: "1..64 bytes", maxChunk: 64 },
  { label: "1..512 bytes", maxChunk: 512 },
];

/** An AWS SDK client whose request handler answers the recorded event streams. */
function recordedBedrockClient(responses: readonly (readonly Uint8Array[])[], requests: string[]) {
  return new BedrockRuntimeClient({
    region: "us-east-1",
    credentials: { accessKeyId: "x", secretAccessKey: "x" },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { body?: unknown }) => {
        requests.push(typeof request.body === "string" ? request.body : "");
        const chunks = responses[requests.length - 1];
        if (!chunks)
          throw new Error(`request ${requests.length}: only ${responses.length} recorded`);
        return {
          response: {
            statusCode: 200,
            reason: "OK",
            headers: {
              "content-type": "application/vnd.amazon.eventstream",
              "x-amzn-requestid": `recorded-${requests.length}`,
            },
            body: Readable.from(chunks.map((c) => Buffer.from(c))),
          },
        };
      },
    } as never,
  });
}

// ---------------------------------------------------------------------------------------------
// The turn

const ASK: UserMessage = { role: "user", content: "Replay the recorded conversation." };

async function replay(fixture: Fixture, chunking: Chunking) {
  const names = new Set(fixture.expected.flatMap((r) => r.calls.map((c) => c.name)));
  const runs: Array<{ name: string; input: unknown }> = [];
  const tools = [...names].map((name) =>
    defineTool({
      name,
      description: `Recorded tool ${name}.`,
      input: z.looseObject({}),
      run: (input) => {
        runs.push({ name, input });
        return `${name} ok`;
      },
    }),
  );
  const executor = new ToolExecutor(tools, { abortGraceMs: 5 });
  const requests: string[] = [];
  const responses = deliveries(fixture, chunking);
  const model =
    fixture.format === "gemini"
      ? geminiModel({
          model: "recorded",
          apiKey: "x",
          fetch: recordedFetch(responses, requests) as never,
        })
      : bedrockModel({
          modelId: "recorded",
          client: recordedBedrockClient(responses, requests),
          providerTools: [{ systemTool: { name: "nova_code_interpreter" } }],
        });
  const events: AgentEvent[] = [];
  const turn = await runAgentTurn({
    model,
    executor,
    messages: [ASK],
    sink: (event) => events.push(event),
    maxRounds: fixture.bodies.length,
  });
  return { turn, runs, requests, events, executor };
}

type Block = Json & { type: string };

function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** Every thought signature a request body carries, in order. */
function signaturesIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(signaturesIn);
  if (!isJson(value)) return [];
  return Object.entries(value).flatMap(([key, v]) =>
    key === "thoughtSignature" && typeof v === "string" ? [v] : signaturesIn(v),
  );
}

/** Gemini model parts of a request body that are provider-side, in order. */
function providerPartsIn(body: { contents: Array<{ role: string; parts: Json[] }> }): Json[] {
  return body.contents
    .filter((c) => c.role === "model")
    .flatMap((c) => c.parts)
    .filter((p) => p.executableCode !== undefined || p.codeExecutionResult !== undefined);
}

// ---------------------------------------------------------------------------------------------
// Tests

const fixtures = loadFixtures();

if (!fixtures) {
  const message = `Real recorded streams not found at ${FORMATS} (formats/manifest.json): the Gemini and Bedrock recordings are not replayed.`;
  if (process.env.CI === "true") {
    it("the real recorded Gemini and Bedrock streams are present (required under CI)", () => {
      throw new Error(message);
    });
  } else {
    console.warn(`\n!!! ${message}\n`);
    it.skip(`real recorded Gemini and Bedrock streams (missing: ${FORMATS})`, () => {});
  }
} else {
  const all = fixtures;

  describe("real recorded Gemini and Bedrock streams (formats/) through geminiModel, bedrockModel and runAgentTurn", () => {
    it("the recordings: 14 Gemini and 7 Bedrock conversations; 2 Gemini provider parts, 2 Bedrock provider blocks, 8 grounding supports naming 9 chunks, no Bedrock citation", () => {
      expect(all.filter((f) => f.format === "gemini")).toHaveLength(14);
      expect(all.filter((f) => f.format === "bedrock")).toHaveLength(7);
      let geminiParts = 0;
      let bedrockBlocks = 0;
      let supports = 0;
      let citations = 0;
      let bedrockCited = 0;
      for (const fixture of all) {
        expect(fixture.expected, fixture.name).toHaveLength(fixture.bodies.length);
        fixture.bodies.forEach((body, k) => {
          const want = fixture.expected[k]!;
          if (fixture.format === "gemini") {
            const parts = geminiProviderParts(body);
            expect(
              parts.map((p) => ({
                type: p.executableCode ? "executableCode" : "codeExecutionResult",
                id: ((p.executableCode ?? p.codeExecutionResult) as Json).id,
              })),
              fixture.name,
            ).toEqual(want.server);
            expect(geminiSignatures(body), fixture.name).toHaveLength(want.signatures);
            geminiParts += parts.length;
            const grounding = geminiGrounding(body);
            for (const s of (grounding?.groundingSupports as Json[] | undefined) ?? []) {
              supports++;
              citations += (s.groundingChunkIndices as unknown[]).length;
            }
          } else {
            const blocks = bedrockProviderBlocks(body);
            expect(
              blocks.map((b) => {
                const inner = (b.toolUse ?? b.toolResult) as Json;
                return {
                  type: b.toolUse ? "server_tool_use" : "tool_result",
                  id: inner.toolUseId,
                  name: inner.name ?? inner.type,
                };
              }),
              fixture.name,
            ).toEqual(want.server);
            bedrockBlocks += blocks.length;
            bedrockCited += bedrockCitations(body);
          }
        });
      }
      expect({ geminiParts, bedrockBlocks, supports, citations, bedrockCited }).toEqual({
        geminiParts: 2,
        bedrockBlocks: 2,
        supports: 8,
        citations: 9,
        bedrockCited: 0,
      });
    });

    for (const fixture of all) {
      for (const chunking of CHUNKINGS) {
        it(`${fixture.name} (${fixture.format}, ${fixture.bodies.length} responses), ${chunking.label}`, async () => {
          const { turn, runs, requests, events } = await replay(fixture, chunking);
          const rounds = fixture.bodies.length;
          expect(turn.rounds, "rounds").toHaveLength(rounds);
          expect(requests, "requests").toHaveLength(rounds);

          turn.rounds.forEach((round, k) => {
            const label = `${fixture.name} r${k + 1} (${chunking.label})`;
            const want = fixture.expected[k]!;
            const body = fixture.bodies[k]!;
            const blocks = plain(round.assistant.content) as unknown as Block[];
            const of = (type: string) => blocks.filter((b) => b.type === type);

            expect(round.stopReason, `${label}: stop reason`).toBe(want.stop ?? "error");
            if (want.usage) {
              expect(round.usage, `${label}: usage`).toMatchObject({
                input_tokens: want.usage.input,
                output_tokens: want.usage.output,
              });
            }
            expect(
              of("text")
                .map((b) => b.text)
                .join(""),
              `${label}: text`,
            ).toBe(want.text.join(""));
            expect(
              of("thinking")
                .map((b) => b.thinking)
                .join(""),
              `${label}: thinking`,
            ).toBe(want.thinking);
            expect(
              of("tool_use").map((b) => ({ name: b.name, input: b.input })),
              `${label}: calls`,
            ).toEqual(want.calls.map((c) => ({ name: c.name, input: c.input })));
            want.calls.forEach((c, i) => {
              if (c.id !== undefined) expect(of("tool_use")[i]?.id, `${label}: call id`).toBe(c.id);
            });

            // Provider-side blocks: a server_tool_use and its result, as received, in order.
            const server = blocks.filter(
              (b) => b.type === "server_tool_use" || b.type === `${fixture.format}_tool_result`,
            );
            expect(
              server.map((b) => b.id ?? b.tool_use_id),
              `${label}: provider blocks`,
            ).toEqual(want.server.map((s) => s.id));
            if (fixture.format === "gemini") {
              expect(
                server.map((b) => (b.type === "server_tool_use" ? b.gemini_part : b.content)),
                `${label}: provider parts as received`,
              ).toEqual(geminiProviderParts(body));
              // Every signature kept, in order: on text/thinking/tool_use blocks and in parts.
              expect(signaturesIn(blocks), `${label}: signatures`).toEqual(geminiSignatures(body));
              expect(
                of("tool_use").map((b) => b.thoughtSignature ?? null),
                `${label}: call signatures`,
              ).toEqual(want.callSignatures ?? []);
              // Grounding: one citation per support and chunk, on the text it spans.
              const grounding = geminiGrounding(body);
              const cited = of("text").flatMap((b) =>
                ((b.citations as Json[] | undefined) ?? []).map((c) => ({ block: b, c })),
              );
              const supports = (grounding?.groundingSupports as Json[] | undefined) ?? [];
              expect(cited, `${label}: citations`).toHaveLength(
                supports.reduce((n, s) => n + (s.groundingChunkIndices as unknown[]).length, 0),
              );
              for (const { block, c } of cited) {
                const text = String(block.text).slice(Number(c.start_index), Number(c.end_index));
                expect(text, `${label}: cited text`).toBe(c.cited_text);
                const chunks = (grounding?.groundingChunks as Json[] | undefined) ?? [];
                const chunk = chunks[Number(c.grounding_chunk_index)];
                expect(c.url, `${label}: cited url`).toBe((chunk?.web as Json | undefined)?.uri);
              }
              expect(
                of("gemini_grounding_metadata").map((b) => b.metadata),
                `${label}: grounding metadata`,
              ).toEqual(grounding ? [grounding] : []);
            } else {
              const recorded = bedrockProviderBlocks(body);
              expect(
                server.map((b) =>
                  b.type === "server_tool_use"
                    ? { id: b.id, name: b.name, input: b.input }
                    : b.content,
                ),
                `${label}: provider blocks as received`,
              ).toEqual(
                recorded.map((r) =>
                  r.toolUse
                    ? {
                        id: (r.toolUse as Json).toolUseId,
                        name: (r.toolUse as Json).name,
                        input: (r.toolUse as Json).input,
                      }
                    : r.toolResult,
                ),
              );
              expect(
                of("thinking").filter((b) => b.signature !== ""),
                `${label}: signed reasoning`,
              ).toHaveLength(want.signatures);
              expect(of("redacted_thinking"), `${label}: redacted reasoning`).toHaveLength(
                want.redacted ?? 0,
              );
              const citations = of("text").flatMap(
                (b) => (b.citations as Json[] | undefined) ?? [],
              );
              expect(citations, `${label}: citations`).toHaveLength(bedrockCitations(body));
            }
          });

          // Shown as server-tool events (a call and a result each), never run here.
          const provider = fixture.expected.reduce((n, r) => n + r.server.length, 0);
          const serverEvents = events.filter((e) => e.type === "server-tool");
          expect(
            serverEvents.filter((e) => e.phase === "call"),
            "server-tool calls",
          ).toHaveLength(provider / 2);
          expect(
            serverEvents.filter((e) => e.phase === "result"),
            "server-tool results",
          ).toHaveLength(provider / 2);
          expect(runs, "client tool runs").toEqual(
            fixture.expected.flatMap((r) => r.calls.map((c) => ({ name: c.name, input: c.input }))),
          );

          // The next request, from the resulting conversation: every provider part / block of
          // the recording again, as received and in order, with every signature in order.
          const conversation: Message[] = turn.messages;
          if (fixture.format === "gemini") {
            const next = geminiRequestBody({ messages: conversation, tools: [] } as never) as never;
            expect(providerPartsIn(next), "provider parts sent back").toEqual(
              fixture.bodies.flatMap(geminiProviderParts),
            );
            expect(signaturesIn(next), "signatures sent back").toEqual(
              fixture.bodies.flatMap(geminiSignatures),
            );
            // The requests the turn sent: each carries the signatures of the responses before it.
            requests.forEach((sent, k) => {
              expect(signaturesIn(JSON.parse(sent)), `request ${k + 1}: signatures`).toEqual(
                fixture.bodies.slice(0, k).flatMap(geminiSignatures),
              );
            });
          } else {
            const next = converseStreamInput({ messages: conversation, tools: [] } as never, {
              modelId: "recorded",
              providerTools: [{ systemTool: { name: "nova_code_interpreter" } }],
            });
            const sentBack = (next.messages ?? [])
              .filter((m) => m.role === "assistant")
              .flatMap((m) => m.content ?? [])
              .filter(
                (b) =>
                  (b.toolUse !== undefined && b.toolUse.type === "server_tool_use") ||
                  (b.toolResult !== undefined && b.toolResult.type !== undefined),
              )
              .map((b) => plain(b) as unknown as Json);
            expect(sentBack, "provider blocks sent back").toEqual(
              fixture.bodies.flatMap((b) =>
                bedrockProviderBlocks(b).map((x) =>
                  x.toolUse ? { toolUse: { ...(x.toolUse as Json), type: "server_tool_use" } } : x,
                ),
              ),
            );
          }
          expect(validateConversation(turn.messages), "validateConversation").toEqual([]);
        });
      }
    }
  });
}
