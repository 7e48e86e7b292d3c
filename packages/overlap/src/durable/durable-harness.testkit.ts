/**
 * What the durable store suites share: a database harness for one test, a unique table prefix,
 * and a guarded read of a turn's events. Its own file so that the suites may import it and each
 * other without a cycle.
 */

import { randomBytes } from "node:crypto";
import type { LoggedEvent } from "../sse/turn-event-log.js";
import type { DurableStore, DurableStoreOptions } from "./durable-store.js";

/** A database for one test: stores over it, each like another instance's. */
export interface DurableHarness {
  /** A store over a connection of its own (another instance), migrated, with the test's prefix. */
  open(options?: DurableStoreOptions): Promise<DurableStore>;
  /** The test's table prefix (unique per test run: others share the database). */
  readonly prefix: string;
  /** Drops the test's tables and closes what it opened. */
  dispose(): Promise<void>;
}

/** A unique table prefix for one test. */
export function testPrefix(): string {
  return `ovt_${randomBytes(5).toString("hex")}_`;
}

/** Every event of a read, with a guard against a read that never ends. */
export async function collect(
  read: AsyncIterable<LoggedEvent>,
  timeoutMs = 5_000,
): Promise<LoggedEvent[]> {
  const out: LoggedEvent[] = [];
  const run = (async () => {
    for await (const event of read) out.push(event);
    return out;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`read did not end; got ${JSON.stringify(out.map((e) => e.id))}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
