/**
 * Why a message ended, in one set for every provider. `error` is never sent by a provider: the
 * runtime uses it for a stream that failed or was cut.
 */
export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "pause_turn"
  | "refusal"
  | "error";
