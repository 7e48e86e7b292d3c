import { request as httpRequest } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { SimRequest } from "./sim-request.js";
import { startSim } from "./sim-server.js";
import { parseSse, rawPost, startTestSim } from "./test-support.js";

const hello = { model: "claude-x", max_tokens: 256, messages: [{ role: "user", content: "hi" }] };

describe("startSim", () => {
  it("answers unknown routes with 404 in each API's shape", async () => {
    const sim = await startTestSim();
    const anthropic = await rawPost(`${sim.url}/v1/complete`, hello, {
      "anthropic-version": "2023-06-01",
    });
    expect(anthropic.status).toBe(404);
    expect(JSON.parse(anthropic.text)).toEqual({
      type: "error",
      error: { type: "not_found_error", message: "Not Found" },
      request_id: anthropic.headers.get("request-id"),
    });
    const openai = await rawPost(`${sim.url}/v1/embeddings`, { model: "m", input: "x" });
    expect(openai.status).toBe(404);
    expect(JSON.parse(openai.text)).toEqual({
      error: {
        message: "Invalid URL (POST /v1/embeddings)",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    });
  });

  it("gives the same bytes for the same seed and request, other ids for another seed", async () => {
    const a = await startTestSim({ seed: 5 });
    const b = await startTestSim({ seed: 6 });
    const body = { ...hello, stream: true };
    const first = await rawPost(`${a.url}/v1/messages`, body);
    expect((await rawPost(`${a.url}/v1/messages`, body)).text).toBe(first.text);
    const other = await rawPost(`${b.url}/v1/messages`, body);
    const messageId = (text: string) => /msg_01\w{22}/.exec(text)?.[0];
    expect(messageId(other.text)).toBeDefined();
    expect(messageId(other.text)).not.toBe(messageId(first.text));
  });

  it("applies config faults to every request; a header 'none' drops them", async () => {
    const sim = await startTestSim({ faults: "status=529" });
    expect((await rawPost(`${sim.url}/v1/messages`, hello)).status).toBe(529);
    expect((await rawPost(`${sim.url}/v1/messages`, hello, { "x-sim-fault": "none" })).status).toBe(
      200,
    );
    await expect(startSim({ faults: "bogus" })).rejects.toThrow(/Unknown fault/);
  });

  it("refuses a malformed fault header with a 400", async () => {
    const sim = await startTestSim();
    const raw = await rawPost(`${sim.url}/v1/messages`, hello, {
      "x-sim-fault": "error-after=soon",
    });
    expect(raw.status).toBe(400);
    expect(JSON.parse(raw.text).error).toEqual({
      type: "invalid_request_error",
      message: 'Fault "error-after" needs a whole number, as in "error-after=3".',
    });
  });

  it("gives the policy the neutral request, without credentials", async () => {
    const seen: SimRequest[] = [];
    const sim = await startTestSim({
      policy: async (request) => {
        seen.push(request);
        return { blocks: [{ type: "text", text: "ok" }] };
      },
    });
    await rawPost(
      `${sim.url}/v1/chat/completions`,
      {
        model: "gpt-x",
        max_tokens: 99,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } },
            ],
          },
          { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "done" }] },
        ],
      },
      { authorization: "Bearer sk-secret", "x-custom": "yes" },
    );
    expect(seen[0]).toEqual({
      api: "openai",
      model: "gpt-x",
      system: "Be brief.",
      maxTokens: 99,
      stream: false,
      tools: [],
      // No provider tool (web search...) offered.
      providerTools: [],
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "c1", name: "f", input: { a: 1 } }],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "done" }] },
      ],
      headers: expect.objectContaining({ "x-custom": "yes" }),
    });
    expect(JSON.stringify(seen[0]?.headers)).not.toContain("sk-secret");
  });

  it("answers 500 api_error when the policy throws", async () => {
    const sim = await startTestSim({
      policy: () => {
        throw new Error("boom");
      },
    });
    const raw = await rawPost(`${sim.url}/v1/messages`, hello);
    expect(raw.status).toBe(500);
    expect(JSON.parse(raw.text).error).toEqual({
      type: "api_error",
      message: "Internal server error",
    });
  });

  it("stops at the request's max_tokens", async () => {
    const sim = await startTestSim({
      policy: () => ({ blocks: [{ type: "text", text: "w".repeat(400) }] }),
    });
    const client = new Anthropic({ baseURL: sim.url, apiKey: "test", maxRetries: 0 });
    const message = await client.messages
      .stream({ ...hello, role: undefined, max_tokens: 10 } as never)
      .finalMessage();
    expect(message.stop_reason).toBe("max_tokens");
    expect(message.content).toEqual([{ type: "text", text: "w".repeat(40) }]);
    expect(message.usage.output_tokens).toBe(10);
  });
});

describe("pacing on the wire", () => {
  it("takes about a second for a response paced to a second", async () => {
    // 240 characters = 60 tokens at 60 tokens/s, plus a 100 ms first token.
    const sim = await startTestSim({
      policy: () => ({ blocks: [{ type: "text", text: "tick ".repeat(48) }] }),
      pacing: { fast: false, jitter: 0, tokensPerSecond: 60, firstTokenMs: 100 },
    });
    const started = performance.now();
    const response = await fetch(`${sim.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let firstDeltaMs: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (firstDeltaMs === undefined && text.includes("text_delta"))
        firstDeltaMs = performance.now() - started;
    }
    const elapsed = performance.now() - started;
    expect(parseSse(text).at(-1)?.event).toBe("message_stop");
    expect(firstDeltaMs).toBeGreaterThanOrEqual(90);
    expect(firstDeltaMs).toBeLessThan(600);
    expect(elapsed).toBeGreaterThan(800);
    expect(elapsed).toBeLessThan(2500);
  });

  it("survives a client that disconnects mid-stream, and serves the next request", async () => {
    const lines: string[] = [];
    const sim = await startTestSim({
      policy: () => ({ blocks: [{ type: "text", text: "slow ".repeat(200) }] }),
      pacing: { fast: false, tokensPerSecond: 100, firstTokenMs: 10 },
      log: (line) => lines.push(line),
    });
    const controller = new AbortController();
    const response = await fetch(`${sim.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...hello, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines).toContain("POST /v1/messages 200 stream aborted end_turn");
    // A short answer (max_tokens cuts it), not streamed: it arrives when fully generated.
    const next = await rawPost(`${sim.url}/v1/messages`, { ...hello, max_tokens: 3 });
    expect(next.status).toBe(200);
  });

  it("reads a body sent in pieces, and drops a request whose client leaves mid-body", async () => {
    const seen: string[] = [];
    const sim = await startTestSim({
      policy: (request) => {
        seen.push(JSON.stringify(request.messages));
        return { blocks: [{ type: "text", text: "ok" }] };
      },
    });
    const body = JSON.stringify({ ...hello, messages: [{ role: "user", content: "piece" }] });
    const post = (pieces: readonly string[], leave: boolean) =>
      new Promise<number | "left">((resolve, reject) => {
        const req = httpRequest(`${sim.url}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        });
        req.on("response", (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", (error) => (leave ? resolve("left") : reject(error)));
        void (async () => {
          for (const piece of pieces) {
            req.write(piece);
            await new Promise((r) => setTimeout(r, 20));
          }
          if (leave) req.destroy();
          else req.end();
        })();
      });
    const third = Math.ceil(body.length / 3);
    const pieces = [body.slice(0, third), body.slice(third, 2 * third), body.slice(2 * third)];
    expect(await post(pieces, false)).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain("piece");
    expect(await post(pieces.slice(0, 2), true)).toBe("left");
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toHaveLength(1);
    expect(await post(pieces, false)).toBe(200);
    expect(seen).toHaveLength(2);
  });

  it("closes promptly with a stream in progress", async () => {
    const sim = await startSim({
      policy: () => ({ blocks: [{ type: "text", text: "long ".repeat(1000) }] }),
      pacing: { tokensPerSecond: 20 },
    });
    const response = await fetch(`${sim.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...hello, stream: true }),
    });
    const reading = response.text().catch(() => "cut");
    const started = performance.now();
    await sim.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await reading).toBe("cut");
  });
});
