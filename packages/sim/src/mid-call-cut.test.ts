import { describe, expect, it } from "vitest";
import { defaultPacing, requestPacing } from "./pacing.js";
import { SimSpecError } from "./sim-spec-error.js";
import { parseSse, rawPost, SHOP_FUNCTIONS, SHOP_TOOLS, startTestSim } from "./test-support.js";

/** POSTs and reads the answer as text up to its end, or up to the cut of a dropped connection. */
async function readUntilCut(url: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The dropped connection: what arrived before it is the answer.
  }
  return text;
}

const sim = await startTestSim();

/** Two calls; the second has arguments long enough to stream in several deltas. */
const TWO_CALLS =
  'call add_to_cart {"sku": "A-1001", "quantity": 2} ' +
  'call add_to_cart {"sku": "B-2002", "quantity": 1, "note": "a gift, wrapped in blue paper with a card"}';

function anthropic(fault: string, text = TWO_CALLS) {
  return readUntilCut(
    `${sim.url}/v1/messages`,
    {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      stream: true,
      // Streamed arguments (without it the API sends each call's arguments whole).
      tools: SHOP_TOOLS.map((t) => ({ ...t, eager_input_streaming: true })),
      messages: [{ role: "user", content: text }],
    },
    { "x-sim-fault": fault },
  );
}

describe("the mid-call faults", () => {
  it("drop-mid-call: the first call is complete, the last one started and is cut in its arguments", async () => {
    const frames = parseSse(await anthropic("drop-mid-call"));
    const data = frames.map((f) => JSON.parse(f.data) as Record<string, unknown>);
    const starts = data.filter(
      (d) =>
        d.type === "content_block_start" &&
        (d.content_block as { type: string }).type === "tool_use",
    );
    expect(starts).toHaveLength(2);
    const [first, last] = starts.map((s) => s.index);
    const stopped = data.filter((d) => d.type === "content_block_stop").map((d) => d.index);
    expect(stopped).toContain(first);
    expect(stopped).not.toContain(last);
    const lastArgs = data
      .filter((d) => d.type === "content_block_delta" && d.index === last)
      .map((d) => (d.delta as { partial_json: string }).partial_json)
      .join("");
    expect(lastArgs.length).toBeGreaterThan(0);
    expect(() => JSON.parse(lastArgs)).toThrow();
    expect(frames.some((f) => f.event === "message_stop" || f.event === "error")).toBe(false);
  });

  it("error-mid-call: the same point, then an error event", async () => {
    const dropped = parseSse(await anthropic("drop-mid-call"));
    const errored = parseSse(await anthropic("error-mid-call"));
    expect(errored.slice(0, -1)).toEqual(dropped);
    expect(errored.at(-1)?.event).toBe("error");
  });

  it("without a tool call, cuts the reply's text halfway", async () => {
    const whole = parseSse(await anthropic("none", "hello there"));
    const cut = parseSse(await anthropic("drop-mid-call", "hello there"));
    const deltas = (frames: typeof whole) =>
      frames.filter((f) => f.event === "content_block_delta").length;
    expect(deltas(cut)).toBeGreaterThan(0);
    expect(deltas(cut)).toBeLessThan(deltas(whole));
  });

  it("cuts the same call in the Chat Completions format", async () => {
    const answer = await readUntilCut(
      `${sim.url}/v1/chat/completions`,
      {
        model: "gpt-4o-mini",
        stream: true,
        tools: SHOP_FUNCTIONS,
        messages: [{ role: "user", content: TWO_CALLS }],
      },
      { "x-sim-fault": "drop-mid-call" },
    );
    const chunks = parseSse(answer).map((f) => f.data);
    expect(chunks).not.toContain("[DONE]");
    const args = new Map<number, string>();
    for (const chunk of chunks) {
      const parsed = JSON.parse(chunk) as {
        choices: {
          delta: { tool_calls?: { index: number; function: { arguments?: string } }[] };
        }[];
      };
      for (const call of parsed.choices[0]?.delta.tool_calls ?? []) {
        args.set(call.index, (args.get(call.index) ?? "") + (call.function.arguments ?? ""));
      }
    }
    expect(JSON.parse(args.get(0) ?? "")).toEqual({ sku: "A-1001", quantity: 2 });
    expect(() => JSON.parse(args.get(1) ?? "")).toThrow();
  });
});

describe("x-sim-pacing", () => {
  it("overrides the speed and the first-token latency of one request", () => {
    const pacing = requestPacing(defaultPacing, "tokens-per-second=240, first-token-ms=0");
    expect(pacing).toEqual({ ...defaultPacing, tokensPerSecond: 240, firstTokenMs: 0 });
    expect(requestPacing(defaultPacing, undefined)).toEqual(defaultPacing);
  });

  it("refuses unknown names and values out of range, with a 400 over HTTP", async () => {
    expect(() => requestPacing(defaultPacing, "tokens-per-second=0")).toThrow(SimSpecError);
    expect(() => requestPacing(defaultPacing, "tokens-per-second=fast")).toThrow(/1 to 10000/);
    expect(() => requestPacing(defaultPacing, "first-token-ms=-1")).toThrow(SimSpecError);
    expect(() => requestPacing(defaultPacing, "jitter=0")).toThrow(/Unknown pacing "jitter"/);
    const answer = await rawPost(
      `${sim.url}/v1/messages`,
      {
        model: "claude-sonnet-4-5",
        max_tokens: 64,
        messages: [{ role: "user", content: "hi" }],
      },
      { "x-sim-pacing": "tokens-per-second=-5" },
    );
    expect(answer.status).toBe(400);
    expect(answer.text).toContain("tokens-per-second");
  });
});
