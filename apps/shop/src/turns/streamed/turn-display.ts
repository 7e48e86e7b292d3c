/**
 * What a turn showed besides its messages, kept with the turn so a reload draws it again: the
 * cards (`ui` events), the approval cards (`approval-request` and `approval-resolved`) and each
 * round's timings (`round-end`). The stored messages hold what was said and called; these events
 * hold what the page drew from it. Kept at each round's end and at the turn's end (one write each,
 * never more than one at a time), best effort: a failed write is logged, the turn goes on.
 */

import type { AgentEvent } from "overlap-runtime";

/** The events a reload needs beside the messages; a delegated agent's own events are left out. */
export function keptForDisplay(event: AgentEvent): boolean {
  if ("parentCallId" in event && event.parentCallId !== undefined) return false;
  return (
    event.type === "ui" ||
    event.type === "round-end" ||
    event.type === "approval-request" ||
    event.type === "approval-resolved"
  );
}

/** Where a turn's display is kept (the conversation store's `writeTurnDisplay`). */
export type WriteTurnDisplay = (events: readonly AgentEvent[]) => Promise<void>;

/**
 * Collects the turn's kept events and writes them at each `round-end` and at `done` when there is
 * something not yet written. Writes do not overlap: one that is asked for while another runs
 * follows it with everything kept by then.
 */
export function turnDisplayKeeper(
  write: WriteTurnDisplay,
  onError: (err: unknown) => void,
): { observe(event: AgentEvent): void; settled(): Promise<void> } {
  const kept: AgentEvent[] = [];
  // How many kept events the writes asked for so far hold (a failed write gives its share back):
  // with nothing new since, there is nothing to write.
  let asked = 0;
  let written = 0;
  let running: Promise<void> | undefined;
  let again = false;
  const flush = () => {
    asked = kept.length;
    if (running) {
      again = true;
      return;
    }
    const events = kept.slice();
    running = write(events)
      .then(() => {
        written = Math.max(written, events.length);
      })
      .catch((err: unknown) => {
        asked = written;
        onError(err);
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          flush();
        }
      });
  };
  return {
    observe(event) {
      if (keptForDisplay(event)) kept.push(event);
      if ((event.type === "round-end" || event.type === "done") && kept.length > asked) flush();
    },
    async settled() {
      while (running) await running;
    },
  };
}
