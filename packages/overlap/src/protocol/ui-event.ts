/** The formal UI events tools produce, as the browser receives them. */

/**
 * A formal UI event produced by a tool (a card, a cart update...). `type` names it; the rest is
 * the host application's payload. Sent to the browser as an AgentEvent `ui` after the join.
 */
export interface UiEvent {
  type: string;
  [key: string]: unknown;
}
