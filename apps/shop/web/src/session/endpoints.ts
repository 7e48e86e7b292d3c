/** The two agents' API prefixes (the routes under them are the same). */

export type AgentKind = "shopper" | "merchant";

/** Where one agent's sessions live. */
export interface Endpoints {
  kind: AgentKind;
  /** `POST base` creates a session; `base/:id/...` are its routes. */
  base: string;
}

export const SHOPPER: Endpoints = { kind: "shopper", base: "/api/sessions" };
export const MERCHANT: Endpoints = { kind: "merchant", base: "/api/merchant/sessions" };

/** The path of one session route, e.g. `sessionPath(SHOPPER, id, "messages")`. */
export function sessionPath(endpoints: Endpoints, id: string, ...rest: string[]): string {
  return [endpoints.base, encodeURIComponent(id), ...rest.map(encodeURIComponent)].join("/");
}
