/**
 * The load benchmark's open loop: every conversation sends a message, waits for the reply, thinks
 * for a while and sends the next one, until the duration is over; the conversations start spread
 * evenly over one cycle (a turn plus a think time), so the turns arrive at a steady rate from the
 * first second instead of in one burst. What a turn is comes in as a function, so the loop is
 * tested without a shop.
 */

import { setTimeout as sleep } from "node:timers/promises";
import type { TurnRecord } from "./load-figures.js";

/** How {@link runOpenLoop} runs. */
export interface OpenLoopPlan {
  conversations: number;
  /** From a reply to the conversation's next message, ms. */
  thinkMs: number;
  /** New turns start only this long after the loop's start, ms; running ones are awaited. */
  durationMs: number;
  /** One cycle of a conversation (about a lone turn plus the think time), ms: the spread of the starts. */
  cycleMs: number;
}

/** When each conversation sends its first message, ms from the loop's start: evenly over a cycle. */
export function startOffsetsMs(conversations: number, cycleMs: number): number[] {
  return Array.from({ length: conversations }, (_, i) => (i * cycleMs) / conversations);
}

/**
 * Runs the loop: conversation `i` calls `turn(i, n)` for its n-th turn (from 0), one at a time.
 * Resolves with every turn's record, in the order they ended.
 */
export async function runOpenLoop(
  plan: OpenLoopPlan,
  turn: (conversation: number, n: number) => Promise<TurnRecord>,
): Promise<TurnRecord[]> {
  const records: TurnRecord[] = [];
  const startedAt = performance.now();
  const elapsed = () => performance.now() - startedAt;
  const offsets = startOffsetsMs(plan.conversations, plan.cycleMs);
  await Promise.all(
    offsets.map(async (offset, i) => {
      if (offset > 0) await sleep(offset);
      for (let n = 0; elapsed() < plan.durationMs; n++) {
        records.push(await turn(i, n));
        // A think that ends after the duration starts no turn: the conversation is over now.
        // Sleeping it out only added idle time to the load's wall time (up to a whole think,
        // 8 s at 100 turns/s over 1,000 conversations), and so lowered the turns per second.
        if (elapsed() + plan.thinkMs >= plan.durationMs) break;
        if (plan.thinkMs > 0) await sleep(plan.thinkMs);
      }
    }),
  );
  return records;
}
