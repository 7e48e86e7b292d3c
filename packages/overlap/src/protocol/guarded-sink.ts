/**
 * The one guard around a host's event sink. A sink is the host's code (often a write to a
 * connection that may have closed): its failure must not break the round or the turn that feeds
 * it, nor lose a tool's result, so every layer that emits events sends them through this.
 */

import type { AgentEventSink } from "./agent-event.js";

/**
 * A sink that never throws: `sink`'s failures are dropped. With `agent`, an event that names no
 * agent is stamped with it (a delegate's events keep the sub-agent's name).
 */
export function guardedSink(sink: AgentEventSink, agent?: string): AgentEventSink {
  return (event) => {
    try {
      sink(agent && event.agent === undefined ? { ...event, agent } : event);
    } catch {
      // A failing sink (a closed connection) changes nothing for the code that emitted.
    }
  };
}
