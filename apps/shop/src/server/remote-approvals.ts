/**
 * Approvals answered on another instance than the one running the turn, over the database's own
 * wake-ups (PostgreSQL LISTEN/NOTIFY: no Redis). A call that waits for the user's approval waits
 * in the process that runs its turn; the user's answer may reach any instance. That instance
 * sends it on one channel every instance listens to; the instance that runs the turn decides it
 * and sends the result back on the same channel, to the request's id. Only the instance where the
 * call waits answers: the others stay silent, and an asker that hears nothing in time says the
 * call is unknown.
 */

import { randomUUID } from "node:crypto";
import type { ApprovalDecision, DecideResult } from "overlap-runtime";
import type { SqlDriver } from "overlap-runtime/durable";

/** How long an asker waits for the instance that runs the turn, by default. */
const ASK_TIMEOUT_MS = 5_000;

/** What travels on the channel. */
type Message =
  | {
      kind: "ask";
      id: string;
      sessionId: string;
      callId: string;
      decision: ApprovalDecision;
    }
  | { kind: "reply"; id: string; result: DecideResult };

/** Decides a call that waits here; `undefined` when no turn of the session runs here. */
export type DecideHere = (
  sessionId: string,
  callId: string,
  decision: ApprovalDecision,
) => DecideResult | undefined;

/** Approvals passed between the instances that share one database. */
export class RemoteApprovals {
  readonly #driver: SqlDriver;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #waiting = new Map<string, (result: DecideResult) => void>();
  #listening: Promise<(() => Promise<void>) | undefined> | undefined;

  /** Over `driver`'s wake-ups on `channel`; without them (SQLite) nothing crosses instances. */
  constructor(driver: SqlDriver, channel: string, options: { timeoutMs?: number } = {}) {
    this.#driver = driver;
    this.#channel = channel;
    this.#timeoutMs = options.timeoutMs ?? ASK_TIMEOUT_MS;
  }

  /** True when the database can carry approvals between instances. */
  get available(): boolean {
    return this.#driver.listen !== undefined && this.#driver.notify !== undefined;
  }

  /** Listens on the channel: answers the asks `decideHere` knows, passes replies to askers. */
  async serve(decideHere: DecideHere): Promise<void> {
    const listen = this.#driver.listen;
    if (!listen || this.#listening) {
      await this.#listening;
      return;
    }
    this.#listening = listen
      .call(this.#driver, this.#channel, (payload) => {
        void this.#receive(payload, decideHere);
      })
      .catch(() => undefined); // the approvals of this instance's own turns still work
    await this.#listening;
  }

  /**
   * Sends `decision` to the instance where the session's call waits; resolves to its answer, or
   * `undefined` when no instance answered in time (or none can be reached).
   */
  async ask(
    sessionId: string,
    callId: string,
    decision: ApprovalDecision,
  ): Promise<DecideResult | undefined> {
    if (!this.available || !this.#listening) return undefined;
    const id = randomUUID();
    const answered = new Promise<DecideResult | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(undefined);
      }, this.#timeoutMs);
      this.#waiting.set(id, (result) => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        resolve(result);
      });
    });
    try {
      await this.#send({ kind: "ask", id, sessionId, callId, decision });
    } catch {
      this.#waiting.get(id)?.({ status: "unknown" });
      return undefined;
    }
    return answered;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    const unlisten = await this.#listening;
    this.#listening = undefined;
    await unlisten?.().catch(() => {});
  }

  async #receive(payload: string, decideHere: DecideHere): Promise<void> {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (message.kind === "reply") {
      this.#waiting.get(message.id)?.(message.result);
      return;
    }
    const result = decideHere(message.sessionId, message.callId, message.decision);
    if (result === undefined) return; // not here: the instance that runs the turn answers
    await this.#send({ kind: "reply", id: message.id, result }).catch(() => {});
  }

  async #send(message: Message): Promise<void> {
    await this.#driver.notify?.(this.#channel, JSON.stringify(message));
  }
}
