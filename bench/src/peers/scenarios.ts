/**
 * The work every system does in `bench/peers`: scenarios of one user turn (model → tools → model
 * final answer), the tools the model may call, and the response cut by faults. Pure data and
 * pure functions, no dependencies: the scripted model's policy (in the sim process) and every
 * system's child process (Node 20 and Node 22) import this same module.
 *
 * A tool's nominal duration rides in its arguments (`ms`), so every system runs the same work
 * whatever its tool API; `op` names the call (unique within a turn) and comes back in the result
 * text as `done:<op>`, which is how the harness finds a call's result in the next request.
 */

/** Which scripted model server (in the sim process) a scenario talks to. */
export type SimKind = "paced" | "fast-args" | "faults";

/** The seed of every scripted model server (ids; the pacing below does not depend on it). */
export const SIM_SEED = 20_260;

/**
 * Pacing of each server. No jitter and fixed delta sizes (text 16 characters = 4 tokens,
 * arguments 8 = 2 tokens): the sim derives each request's seed from its body, which differs
 * between systems (each SDK writes its own request), so seeded jitter or delta sizes would give
 * every system a different schedule. This way every system gets the same bytes at the same
 * times, and their milliseconds compare directly.
 */
export const SIM_PACING: Record<SimKind, { tokensPerSecond: number; firstTokenMs: number }> = {
  paced: { tokensPerSecond: 200, firstTokenMs: 200 },
  "fast-args": { tokensPerSecond: 12_000, firstTokenMs: 200 },
  faults: { tokensPerSecond: 1000, firstTokenMs: 10 },
};
export const SIM_JITTER = 0;
export const SIM_DELTA_CHARS = { text: [16, 16], args: [8, 8] } as const;

/** A tool the model may call; `locked` tools take the per-session cart lock. */
export interface BenchToolSpec {
  name: string;
  description: string;
  locked: boolean;
}

export const BENCH_TOOLS: readonly BenchToolSpec[] = [
  { name: "lookup", description: "Looks a product up in a slow catalogue.", locked: false },
  { name: "search", description: "Searches the catalogue.", locked: false },
  { name: "inventory", description: "Stock levels of a product.", locked: false },
  { name: "price", description: "The price of a product.", locked: false },
  {
    name: "add_to_cart",
    description: "Adds a product to the session's cart (one write at a time per session).",
    locked: true,
  },
  { name: "display", description: "Shows a list of products to the user.", locked: false },
];

/** The JSON Schema every bench tool declares: `op` and `ms` required, anything else allowed. */
export const BENCH_TOOL_SCHEMA = {
  type: "object",
  properties: {
    op: { type: "string", description: "Name of this call." },
    ms: { type: "integer", description: "How long the tool works, in ms." },
  },
  required: ["op", "ms"],
  additionalProperties: true,
} as const;

/** One call of a scenario's response, in stream order. */
export interface ScenarioCall {
  op: string;
  name: string;
  /** Nominal tool duration, ms. */
  ms: number;
  /** Extra arguments (streamed before `ms`... in key order: op, ms, then these). */
  extra: Record<string, unknown>;
  locked: boolean;
}

/** A piece of the model's first response: text of about `chars` characters, or a call. */
export type ScenarioPiece = { text: number } | { call: number };

export interface Scenario {
  id: string;
  /** A line for tables. */
  title: string;
  sim: SimKind;
  calls: ScenarioCall[];
  plan: ScenarioPiece[];
}

const WORDS =
  "Here is what I found so far and what I am checking next for you: stock levels, prices, " +
  "delivery dates and the reviews that mention fit, warmth, weight and how each item wears. ";

/** About `chars` characters of prose (whole words), deterministic. */
export function prose(chars: number, offset = 0): string {
  const source = WORDS.repeat(2 + Math.ceil((chars + offset) / WORDS.length));
  const text = source.slice(offset % WORDS.length, (offset % WORDS.length) + chars);
  return text.trim() === "" ? "Okay." : text.trimEnd();
}

/** A product list of about `bytes` bytes of JSON: the display tool's big argument. */
export function productList(bytes: number): Array<Record<string, unknown>> {
  const items: Array<Record<string, unknown>> = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const item = {
      sku: `SKU-${String(i).padStart(5, "0")}`,
      name: `Trail runner ${i} "Aero", size ${36 + (i % 12)}`,
      price: Math.round((49.9 + ((i * 7.3) % 150)) * 100) / 100,
      tags: ["outdoor", i % 2 ? "waterproof" : "breathable", `batch-${i % 9}`],
      stock: (i * 37) % 120,
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return items;
}

const SHORT_QUERIES = ["trail shoes", "rain coat", "merino socks", "pack 40l", "headlamp"];

function call(
  scenario: string,
  k: number,
  name: string,
  ms: number,
  extra: Record<string, unknown> = {},
): ScenarioCall {
  const spec = BENCH_TOOLS.find((t) => t.name === name);
  if (!spec) throw new Error(`unknown bench tool ${name}`);
  return { op: `${scenario}-${k}`, name, ms, extra, locked: spec.locked };
}

function q(k: number): { q: string } {
  return { q: SHORT_QUERIES[k % SHORT_QUERIES.length]! };
}

/** About `chars` characters of argument text: a long note, for long argument streams. */
function longNote(chars: number, k: number): { note: string } {
  return { note: prose(chars, k * 37) };
}

/** The scenarios, in table order. */
export function buildScenarios(): Scenario[] {
  const list: Scenario[] = [];
  const add = (
    id: string,
    title: string,
    sim: SimKind,
    calls: ScenarioCall[],
    plan: ScenarioPiece[],
  ) => list.push({ id, title, sim, calls, plan });

  add(
    "one-50ms",
    "1 call, 50 ms, short args, text after",
    "paced",
    [call("one-50ms", 1, "lookup", 50, q(0))],
    [{ text: 80 }, { call: 0 }, { text: 240 }],
  );
  add(
    "two-300ms",
    "2 calls, 300 ms, text after",
    "paced",
    [call("two-300ms", 1, "lookup", 300, q(1)), call("two-300ms", 2, "lookup", 300, q(2))],
    [{ text: 60 }, { call: 0 }, { call: 1 }, { text: 260 }],
  );
  add(
    "three-1500ms-late",
    "3 calls, 1.5 s, calls last",
    "paced",
    [1, 2, 3].map((k) => call("three-1500ms-late", k, "lookup", 1500, q(k))),
    [{ text: 160 }, { call: 0 }, { call: 1 }, { call: 2 }],
  );
  add(
    "mixed-4",
    "4 calls, 50 ms to 1.5 s, interleaved",
    "paced",
    [
      call("mixed-4", 1, "search", 1500, q(0)),
      call("mixed-4", 2, "lookup", 50, q(1)),
      call("mixed-4", 3, "inventory", 400, q(2)),
      call("mixed-4", 4, "price", 800, q(3)),
    ],
    [
      { text: 40 },
      { call: 0 },
      { text: 80 },
      { call: 1 },
      { call: 2 },
      { text: 80 },
      { call: 3 },
      { text: 120 },
    ],
  );
  add(
    "eight-200ms",
    "8 calls, 200 ms, short args",
    "paced",
    Array.from({ length: 8 }, (_, i) => call("eight-200ms", i + 1, "lookup", 200, q(i))),
    [{ text: 40 }, ...Array.from({ length: 8 }, (_, i) => ({ call: i })), { text: 100 }],
  );
  add(
    "long-args-2",
    "2 calls, 400 ms, ~400-char args",
    "paced",
    [
      call("long-args-2", 1, "search", 400, longNote(400, 1)),
      call("long-args-2", 2, "search", 400, longNote(400, 2)),
    ],
    [{ text: 40 }, { call: 0 }, { call: 1 }, { text: 200 }],
  );
  add(
    "cart-lock-3",
    "3 cart writes, 250 ms, one lock",
    "paced",
    [1, 2, 3].map((k) =>
      call("cart-lock-3", k, "add_to_cart", 250, {
        session: "s-1",
        sku: `SKU-0000${k}`,
        quantity: k,
      }),
    ),
    [{ text: 40 }, { call: 0 }, { call: 1 }, { call: 2 }, { text: 240 }],
  );
  add(
    "typical",
    "typical agent: search 400, inventory 250, price 30",
    "paced",
    [
      call("typical", 1, "search", 400, { q: "waterproof trail shoes", size: 43 }),
      call("typical", 2, "inventory", 250, { sku: "SKU-00042" }),
      call("typical", 3, "price", 30, { sku: "SKU-00042", currency: "EUR" }),
    ],
    [{ text: 60 }, { call: 0 }, { text: 40 }, { call: 1 }, { call: 2 }, { text: 160 }],
  );
  add(
    "display-64k",
    "search 400 + display with a 64 KiB argument",
    "fast-args",
    [
      call("display-64k", 1, "search", 400, q(4)),
      call("display-64k", 2, "display", 50, { items: productList(64 * 1024) }),
    ],
    [{ text: 40 }, { call: 0 }, { call: 1 }, { text: 80 }],
  );
  return list;
}

/** The response the fault matrix cuts: three calls (two cart writes, a search), 20 ms tools. */
export function faultScenario(): Scenario {
  return {
    id: "fault-3",
    title: "3 calls cut or broken after every event",
    sim: "faults",
    calls: [
      call("fault-3", 1, "add_to_cart", 20, { session: "s-f", sku: "SKU-00001", quantity: 1 }),
      call("fault-3", 2, "add_to_cart", 20, { session: "s-f", sku: "SKU-00002", quantity: 2 }),
      call("fault-3", 3, "search", 20, q(2)),
    ],
    plan: [{ text: 24 }, { call: 0 }, { call: 1 }, { call: 2 }, { text: 24 }],
  };
}

/** A tiny response for warming each system up (on the fast sim). */
export function warmupScenario(): Scenario {
  return {
    id: "warmup",
    title: "warm-up",
    sim: "faults",
    calls: [call("warmup", 1, "lookup", 1, q(0)), call("warmup", 2, "add_to_cart", 1, q(1))],
    plan: [{ text: 20 }, { call: 0 }, { call: 1 }, { text: 20 }],
  };
}

export function allScenarios(): Scenario[] {
  return [...buildScenarios(), faultScenario(), warmupScenario()];
}

/** The user's prompt that selects a scenario: the policy reads the tag. */
export function scenarioPrompt(id: string): string {
  return `Please help me with my order. [peers:${id}]`;
}

export const SCENARIO_TAG = /\[peers:([\w-]+)\]/;

/** What the user says after a faulty turn, to see whether the conversation can go on. */
export const GO_ON = "go on";

/** The arguments of a call, as the model sends them: op, ms, then the extras. */
export function callInput(c: ScenarioCall): Record<string, unknown> {
  return { op: c.op, ms: c.ms, ...c.extra };
}

/** The final answer's text, after the tool results: fixed, so every system's second response is paced alike. */
export function finalAnswer(results: number): string {
  return `All ${results} results are in. That is everything for this request.`;
}

/** Text of a tool's result: the harness finds `done:<op>` in later requests. */
export function resultText(name: string, op: string): string {
  return `done:${op} ${name} ok`;
}

export const RESULT_MARKER = /done:([\w-]+)/g;
