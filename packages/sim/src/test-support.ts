/** Helpers for this package's tests (not part of the build). */

import { afterAll } from "vitest";
import { type SimServer, type SimServerOptions, startSim } from "./sim-server.js";

/** One parsed SSE frame. */
export interface RawFrame {
  event?: string;
  data: string;
}

/** Splits SSE text into frames (single-line data only, which is all the simulator writes). */
export function parseSse(text: string): RawFrame[] {
  return text
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block) => {
      const frame: RawFrame = { data: "" };
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) frame.event = line.slice(7);
        else if (line.startsWith("data: ")) frame.data = line.slice(6);
      }
      return frame;
    });
}

/** The answer of {@link rawPost}. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** POSTs a JSON body (or a raw string) with fetch and reads the whole answer as text. */
export async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Starts a simulator (fast pacing unless overridden) that is closed after the file's tests. */
export async function startTestSim(options: SimServerOptions = {}): Promise<SimServer> {
  const sim = await startSim({ ...options, pacing: { fast: true, ...options.pacing } });
  afterAll(() => sim.close());
  return sim;
}

/** Tools of the shop example, as Anthropic tool definitions. */
export const SHOP_TOOLS = [
  {
    name: "add_to_cart",
    description: "Adds a product to the cart.",
    input_schema: {
      type: "object" as const,
      properties: { sku: { type: "string" }, quantity: { type: "integer" } },
      required: ["sku"],
    },
  },
  {
    name: "cart_total",
    description: "Returns the cart total.",
    input_schema: { type: "object" as const, properties: {} },
  },
];

/** The same tools as OpenAI function tools. */
export const SHOP_FUNCTIONS = SHOP_TOOLS.map((t) => ({
  type: "function" as const,
  function: { name: t.name, description: t.description, parameters: t.input_schema },
}));

/** A user message asking for three calls: two add_to_cart and cart_total without arguments. */
export const THREE_CALLS =
  'Put A and B in my cart and tell me the total: call add_to_cart {"sku": "A-1001", "quantity": 2} ' +
  'call add_to_cart {"sku": "B-2002", "quantity": 1, "note": "gift \\"wrap\\" ✓"} call cart_total';

/** The inputs {@link THREE_CALLS} scripts, in order. */
export const THREE_CALL_INPUTS = [
  { sku: "A-1001", quantity: 2 },
  { sku: "B-2002", quantity: 1, note: 'gift "wrap" ✓' },
  {},
];
