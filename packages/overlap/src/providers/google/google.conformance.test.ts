/**
 * `geminiModel` against overlap-sim's Gemini endpoint, through real HTTP: the shared adapter
 * conformance suite, and what only Gemini has.
 *
 * The official SDK (`@google/genai`) needs Node 22 and this repository runs on Node 20, so there
 * is no SDK accumulation to compare with: the reference is an independent accumulation of the
 * very bytes the scripted model sent, written here from the API's documented shape (each SSE
 * `data:` line one `GenerateContentResponse`; the response's parts are the concatenation of every
 * chunk's `candidates[0].content.parts`; consecutive text parts of the same kind are one text).
 * Our side is the assembled message sent back through `toGeminiContents`: the parts overlap would
 * return must be the parts the API produced (signatures on the same parts), and the stop reason
 * and usage must follow the last chunk.
 *
 * Same bytes: the sim derives one seed per request from its own seed and the body, so a raw fetch
 * with the body our adapter sent gets byte-identical answers (checked).
 */

import type { SimServer } from "overlap-sim";
import { describe, expect, it } from "vitest";
import { runAgentTurn } from "../../agent/run-agent-turn.js";
import type { Message } from "../../stream/message.js";
import {
  type AdapterHarness,
  type AdapterSetup,
  ASK,
  registerAdapterConformance,
  THREE_CALLS,
} from "../adapter-conformance.testkit.js";
import {
  answerAfterResults,
  capturingFetch,
  readAll,
  recordingTools,
  simRunner,
  toolUses,
} from "../provider-sim.testkit.js";
import { geminiModel, geminiRequestBody, geminiStreamUrl, toGeminiContents } from "./google.js";

const SEED = 20_250_917;
const MODEL = "scripted-gemini";
const withSim = simRunner({ pacing: { fast: true }, seed: SEED });

function simHeaders(setup: AdapterSetup): Record<string, string> {
  return {
    ...(setup.fault ? { "x-sim-fault": setup.fault } : {}),
    ...(setup.quirk ? { "x-sim-quirk": setup.quirk } : {}),
  };
}

function modelFor(sim: SimServer, setup: AdapterSetup = {}) {
  return geminiModel({
    model: MODEL,
    apiKey: "test",
    baseUrl: sim.url,
    maxRetries: 0,
    headers: simHeaders(setup),
    ...(setup.params ? { params: setup.params } : {}),
    ...(setup.capture ? { fetch: capturingFetch(setup.capture) } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// The independent accumulation

type Json = Record<string, unknown>;

/**
 * The SSE text's `data:` payloads (written by the sim one per frame, no `event:` field, no
 * multi-line data) parsed as JSON.
 */
function sseChunks(text: string): Json[] {
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      expect(frame.startsWith("data: ")).toBe(true);
      return JSON.parse(frame.slice("data: ".length)) as Json;
    });
}

interface Accumulated {
  parts: Json[];
  finishReason: unknown;
  usage: Json | undefined;
}

function accumulate(chunks: readonly Json[]): Accumulated {
  const parts: Json[] = [];
  let finishReason: unknown;
  let usage: Json | undefined;
  for (const chunk of chunks) {
    const candidate = (chunk.candidates as Json[] | undefined)?.[0];
    const content = candidate?.content as Json | undefined;
    parts.push(...(((content?.parts as Json[] | undefined) ?? []) as Json[]));
    if (candidate?.finishReason !== undefined) finishReason = candidate.finishReason;
    if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata as Json;
  }
  return { parts: mergeParts(parts), finishReason, usage };
}

/**
 * The documented equivalence of parts: consecutive text parts of the same kind (thought or not)
 * are one text; a signature belongs to the text it came with (never two in one text); an empty
 * text part without a signature says nothing.
 */
function mergeParts(parts: readonly Json[]): Json[] {
  const out: Json[] = [];
  for (const part of parts) {
    if (part.text === "" && part.thoughtSignature === undefined) continue;
    const last = out.at(-1);
    const mergeable =
      last !== undefined &&
      typeof last.text === "string" &&
      typeof part.text === "string" &&
      (last.thought === true) === (part.thought === true) &&
      !(last.thoughtSignature !== undefined && part.thoughtSignature !== undefined);
    if (mergeable) {
      last.text = `${String(last.text)}${String(part.text)}`;
      if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
    } else {
      out.push({ ...part });
    }
  }
  return out;
}

const STOP_OF_FINISH = (finish: unknown, calls: number) =>
  finish === "MAX_TOKENS"
    ? "max_tokens"
    : finish === "SAFETY"
      ? "refusal"
      : calls > 0
        ? "tool_use"
        : "end_turn";

const harness: AdapterHarness = {
  seed: SEED,
  model: modelFor,
  async reference(sim, request, setup = {}) {
    const body = JSON.stringify(
      geminiRequestBody(request, setup.params ? { params: setup.params } : {}),
    );
    const raw = await fetch(geminiStreamUrl({ model: MODEL, baseUrl: sim.url }), {
      method: "POST",
      headers: { "content-type": "application/json", ...simHeaders(setup) },
      body,
    });
    const bytes = raw.body ? await readAll(raw.body) : "";
    // The chunks that arrived before an `{"error": …}` the sim sent as the stream's failure.
    const arrived = raw.ok ? sseChunks(bytes).filter((c) => c.error === undefined) : [];
    const { parts, finishReason, usage } = accumulate(arrived);
    const calls = parts.flatMap((p) => {
      const call = p.functionCall as { name: string; args: unknown } | undefined;
      return call ? [{ name: call.name, input: call.args, complete: true }] : [];
    });
    return {
      request: body,
      response: bytes,
      content: parts,
      stopReason:
        finishReason === undefined ? undefined : STOP_OF_FINISH(finishReason, calls.length),
      usage: usage && {
        input: usage.promptTokenCount as number | undefined,
        output: Number(usage.candidatesTokenCount ?? 0) + Number(usage.thoughtsTokenCount ?? 0),
      },
      // A call arrives whole: complete on arrival.
      calls,
      frames: arrived.length,
    };
  },
  comparable: (message) => mergeParts(toGeminiContents([ASK, message])[1]?.parts ?? []),
  expectCutReference(_fault, n, reference, label) {
    expect(reference.frames, label).toBe(n);
  },
  // A part arrives whole, so a call runs the moment its chunk arrives.
  eagerWithinMs: 25,
  extraComplete: [
    {
      name: "several calls in one chunk (multi-call-chunk)",
      script: THREE_CALLS,
      setup: { quirk: "multi-call-chunk" },
    },
  ],
  invalidJson: { streamError: "MALFORMED_FUNCTION_CALL" },
  maxTokens: "call-never-arrives",
  statusErrors: [
    { fault: "429", status: 429, type: "RESOURCE_EXHAUSTED" },
    { fault: "529", status: 503, type: "UNAVAILABLE" },
    { fault: "500", status: 500, type: "INTERNAL" },
  ],
  // The search is grounding metadata (never sent back).
  thinkingWebSearch: [
    "thinking",
    "text",
    "tool_use",
    "tool_use",
    "tool_use",
    "gemini_grounding_metadata",
  ],
  refusal: true,
};

registerAdapterConformance("geminiModel", harness);

// ---------------------------------------------------------------------------------------------
// Gemini's own

describe("geminiModel: what only Gemini has", () => {
  it("ids are the API's or gemini-<responseId>-<n>; the call keeps its thoughtSignature, which the API requires back", async () => {
    await withSim({ policy: answerAfterResults(THREE_CALLS) }, async (sim) => {
      const { executor } = recordingTools();
      const turn = await runAgentTurn({
        model: modelFor(sim),
        executor,
        messages: [{ role: "user", content: "Add the shoes, total, search." }],
        sink: () => {},
      });
      expect(turn.error).toBeUndefined();
      const assistant = turn.messages[1];
      if (assistant?.role !== "assistant") throw new Error("no assistant message");
      const calls = toolUses(assistant.content);
      expect(calls[0]?.thoughtSignature).toMatch(/^Eq/);
      expect(calls.map((b) => b.id)).toEqual(
        calls.map((_, i) => expect.stringMatching(new RegExp(`^gemini-[\\w-]+-${i + 1}$`))),
      );
      // Without the signature, the API (the sim, strictly) refuses the next request.
      const stripped = turn.messages.map((m) =>
        m.role === "assistant"
          ? {
              ...m,
              content: m.content.map((b) => {
                const { thoughtSignature: _s, ...rest } = b as typeof b & {
                  thoughtSignature?: string;
                };
                return rest;
              }),
            }
          : m,
      ) as Message[];
      const refused = await runAgentTurn({
        model: modelFor(sim),
        executor,
        messages: [...stripped.slice(0, 3)],
        sink: () => {},
      });
      expect(refused.error?.code).toBe("provider_error");
      expect(refused.error?.message).toContain("Function call is missing a thought_signature");
    });
  });
});
