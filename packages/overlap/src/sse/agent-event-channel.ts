/**
 * A channel from `runAgentTurn`'s sink to a reader of its events as an async iterable: how a
 * route hands a running turn to `toUIMessageStream` / `uiMessageStreamResponse` (or anything else
 * that reads events one by one).
 */

import type { AgentEvent, AgentEventSink } from "../protocol/agent-event.js";

/** A sink for `runAgentTurn` and the AgentEvents it receives, as an async iterable. */
export interface AgentEventChannel {
  /** Pass as `runAgentTurn`'s `sink`. */
  readonly sink: AgentEventSink;
  /** The events, in order; ends after the turn's own `done` (or at `close()`). One reader. */
  readonly events: AsyncIterable<AgentEvent>;
  /** Ends the iterable after the events already received. */
  close(): void;
}

/**
 * Connects `runAgentTurn`'s sink to `toUIMessageStream` / `uiMessageStreamResponse`:
 *
 * ```ts
 * const channel = agentEventChannel();
 * void runAgentTurn({ model, executor, messages, sink: channel.sink });
 * return uiMessageStreamResponse(channel.events);
 * ```
 */
export function agentEventChannel(): AgentEventChannel {
  const queue: AgentEvent[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  return {
    sink(event) {
      if (closed) return;
      queue.push(event);
      if (event.type === "done" && event.parentCallId === undefined) closed = true;
      notify();
    },
    close() {
      closed = true;
      notify();
    },
    events: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const event = queue.shift();
          if (event) {
            yield event;
            continue;
          }
          if (closed) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      },
    },
  };
}
