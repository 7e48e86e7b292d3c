/**
 * The demo controls of one shopper session ("How it works"): the scripted model's
 * speed, a simulated latency for the shop's services, and a fault for the next model reply. Pure:
 * the validation of an update, how it applies, and what the embedded model is told (its
 * `x-sim-pacing` / `x-sim-fault` request headers). Nothing here reaches a real provider.
 */

import { z } from "zod";

/** A simulated service: `search`, `inventory`, `cart`, `orders`. */
export type DemoService = "search" | "inventory" | "cart" | "orders";

/** Every service, in the order the drawer lists them. */
export const DEMO_SERVICES: readonly DemoService[] = ["search", "inventory", "cart", "orders"];

/**
 * The services each shopper tool calls. Changing the cart checks stock first (inventory, then
 * cart), so a slow inventory delays adds but not the total: calls of unequal length, the shape in
 * which starting early saves time.
 */
export const TOOL_SERVICES: Readonly<Record<string, readonly DemoService[]>> = {
  search_products: ["search"],
  get_product: ["inventory"],
  show_products: ["inventory"],
  compare_products: ["inventory"],
  add_to_cart: ["inventory", "cart"],
  update_cart_item: ["inventory", "cart"],
  remove_from_cart: ["cart"],
  clear_cart: ["cart"],
  view_cart: ["cart"],
  cart_total: ["cart"],
  my_orders: ["orders"],
  checkout: ["orders"],
};

/**
 * Tools that go through the session's cart lock, which serves them in call order: a
 * simulated wait must not let a later one overtake an earlier one.
 */
export const CART_LOCK_TOOLS: ReadonlySet<string> = new Set([
  "add_to_cart",
  "update_cart_item",
  "remove_from_cart",
  "clear_cart",
  "view_cart",
  "cart_total",
  "checkout",
]);

/** A call's simulated latency: the sum over the services its tool calls. */
export function callLatencyMs(
  tool: string,
  latency: Readonly<Record<DemoService, number>>,
): { services: DemoService[]; ms: number } {
  const services = (TOOL_SERVICES[tool] ?? []).filter((s) => latency[s] > 0);
  return { services, ms: services.reduce((sum, s) => sum + latency[s], 0) };
}

/**
 * How the next model reply is broken, once: `drop` (the connection cut halfway through the last
 * tool call), `error` (an error event at that point), `invalid-json` (the last call's arguments are
 * not valid JSON), `max-tokens` (the reply cut by its token limit inside the last call).
 */
export type DemoFault = "drop" | "error" | "invalid-json" | "max-tokens";

export const DEMO_FAULTS: readonly DemoFault[] = ["drop", "error", "invalid-json", "max-tokens"];

/** The simulator fault each demo fault asks for (see overlap-sim's `faults.ts`). */
const SIM_FAULT: Record<DemoFault, string> = {
  drop: "drop-mid-call",
  error: "error-mid-call",
  "invalid-json": "invalid-json",
  "max-tokens": "max-tokens",
};

/** The longest simulated latency of a service, in ms. */
export const MAX_SERVICE_LATENCY_MS = 5_000;
/** The model speed range, tokens per second. */
export const MIN_TOKENS_PER_SECOND = 5;
export const MAX_TOKENS_PER_SECOND = 1_000;

/** One session's demo settings. */
export interface DemoSettings {
  /** The scripted model's speed; `null` keeps the server's own pacing. */
  tokensPerSecond: number | null;
  /** Simulated latency added before each call of a service's tools (0: none). */
  serviceLatencyMs: Record<DemoService, number>;
  /** A fault for the next model reply, consumed by it; `null`: none armed. */
  breakNextReply: DemoFault | null;
}

/** No demo effect at all. */
export function defaultDemoSettings(): DemoSettings {
  return {
    tokensPerSecond: null,
    serviceLatencyMs: { search: 0, inventory: 0, cart: 0, orders: 0 },
    breakNextReply: null,
  };
}

const latency = z
  .number()
  .int("must be a whole number of milliseconds")
  .min(0, "must be 0 or more")
  .max(MAX_SERVICE_LATENCY_MS, `must be at most ${MAX_SERVICE_LATENCY_MS} ms`);

/**
 * The body of `PUT /api/sessions/:id/demo`: any of the fields; those left out keep their value,
 * and so do the services left out of `serviceLatencyMs`. Unknown fields are refused (a typo must
 * not pass silently).
 */
export const DemoUpdate = z
  .object({
    tokensPerSecond: z
      .number()
      .min(MIN_TOKENS_PER_SECOND, `must be at least ${MIN_TOKENS_PER_SECOND}`)
      .max(MAX_TOKENS_PER_SECOND, `must be at most ${MAX_TOKENS_PER_SECOND}`)
      .nullable()
      .optional(),
    serviceLatencyMs: z
      .object({
        search: latency.optional(),
        inventory: latency.optional(),
        cart: latency.optional(),
        orders: latency.optional(),
      })
      .strict()
      .optional(),
    breakNextReply: z
      .enum(DEMO_FAULTS as [DemoFault, ...DemoFault[]], {
        error: `must be null or one of ${DEMO_FAULTS.join(", ")}`,
      })
      .nullable()
      .optional(),
  })
  .strict();

/** A validated update. */
export type DemoUpdate = z.output<typeof DemoUpdate>;

/** True when the update touches what only the scripted model can do (speed, faults). */
export function needsModelControls(update: DemoUpdate): boolean {
  return (
    (update.tokensPerSecond !== undefined && update.tokensPerSecond !== null) ||
    (update.breakNextReply !== undefined && update.breakNextReply !== null)
  );
}

/** `settings` with `update` applied (a new object). */
export function applyDemoUpdate(settings: DemoSettings, update: DemoUpdate): DemoSettings {
  const latencies = { ...settings.serviceLatencyMs };
  for (const service of DEMO_SERVICES) {
    const ms = update.serviceLatencyMs?.[service];
    if (ms !== undefined) latencies[service] = ms;
  }
  return {
    tokensPerSecond:
      update.tokensPerSecond === undefined ? settings.tokensPerSecond : update.tokensPerSecond,
    serviceLatencyMs: latencies,
    breakNextReply:
      update.breakNextReply === undefined ? settings.breakNextReply : update.breakNextReply,
  };
}

/**
 * The embedded model's request headers for one request: its pacing (`x-sim-pacing`) and the
 * fault being consumed (`x-sim-fault`).
 */
export function simRequestHeaders(
  tokensPerSecond: number | null,
  fault: DemoFault | null,
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (tokensPerSecond !== null) headers["x-sim-pacing"] = `tokens-per-second=${tokensPerSecond}`;
  if (fault !== null) headers["x-sim-fault"] = SIM_FAULT[fault];
  return headers;
}
