/**
 * Who is who in a durable turn: the idempotency key of a logical call (stable across retries,
 * resumes and takeovers, independent of the provider's call ids) and the identity of a process as
 * a lease holder (with a check, on the same machine, that it is gone).
 */

import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { ToolCall } from "../stream/tool-call.js";

/**
 * The idempotency key of a call: a digest of the chat, the turn that made the call and the
 * call's place in it (round, block index), never the provider's call id.
 */
export function idempotencyKeyOf(
  chatId: string,
  turnId: string,
  call: Pick<ToolCall, "round" | "index">,
): string {
  const digest = createHash("sha256")
    .update(`${chatId}\n${turnId}\n${call.round}\n${call.index}`)
    .digest("base64url");
  return `ovk_${digest.slice(0, 32)}`;
}

/** This process as a lease holder: the machine, the process id and a random part. */
export function durableHolderId(): string {
  return `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
}

/**
 * True when `holder` ({@link durableHolderId}) names a process of this machine that no longer
 * exists: its leases can be taken over at once. False whenever that cannot be known.
 */
export function holderIsGone(holder: string): boolean {
  const [host, pid] = holder.split("/");
  if (host !== hostname() || !pid || !/^\d+$/.test(pid)) return false;
  if (Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
