/**
 * The demo settings of every shopper session, in this process's memory (a demonstration aid: a
 * restart forgets them, and another server process has its own), with what they did: the fault
 * taken by a reply and the calls a simulated latency delayed, so the page can say so.
 */

import {
  applyDemoUpdate,
  type DemoFault,
  type DemoService,
  type DemoSettings,
  type DemoUpdate,
  defaultDemoSettings,
} from "./demo-settings.js";

/** A call a simulated latency delayed. */
export interface SimulatedCall {
  /** The services whose simulated latency the call waited (in the tool's order). */
  services: DemoService[];
  /** Their sum. */
  ms: number;
}

/** What the book knows of one session. */
export interface DemoState {
  settings: DemoSettings;
  /** The last fault a reply took, and when (ISO time). */
  lastBreak: { fault: DemoFault; at: string } | null;
  /** The latest calls delayed by a simulated latency, by call id (at most {@link MAX_CALLS}). */
  simulated: Record<string, SimulatedCall>;
}

/** Sessions kept (the oldest touched is forgotten first). */
const MAX_SESSIONS = 10_000;
/** Delayed calls remembered per session. */
const MAX_CALLS = 200;

interface Entry {
  settings: DemoSettings;
  lastBreak: DemoState["lastBreak"];
  simulated: Map<string, SimulatedCall>;
}

/** Demo settings by session id. */
export class DemoBook {
  readonly #sessions = new Map<string, Entry>();

  /** The session's state (defaults for a session never configured). */
  state(sessionId: string): DemoState {
    const entry = this.#sessions.get(sessionId);
    if (!entry) return { settings: defaultDemoSettings(), lastBreak: null, simulated: {} };
    return {
      settings: entry.settings,
      lastBreak: entry.lastBreak,
      simulated: Object.fromEntries(entry.simulated),
    };
  }

  /** The session's settings. */
  settings(sessionId: string): DemoSettings {
    return this.#sessions.get(sessionId)?.settings ?? defaultDemoSettings();
  }

  /** Applies a validated update; returns the new state. */
  update(sessionId: string, update: DemoUpdate): DemoState {
    const entry = this.#entry(sessionId);
    entry.settings = applyDemoUpdate(entry.settings, update);
    return this.state(sessionId);
  }

  /** The armed fault, disarmed: the reply about to be requested takes it (once). */
  takeBreak(sessionId: string): DemoFault | null {
    const entry = this.#sessions.get(sessionId);
    const fault = entry?.settings.breakNextReply ?? null;
    if (entry && fault !== null) {
      entry.settings = { ...entry.settings, breakNextReply: null };
      entry.lastBreak = { fault, at: new Date().toISOString() };
    }
    return fault;
  }

  /** Notes that a simulated latency delayed a call. */
  noteSimulated(sessionId: string, callId: string, call: SimulatedCall): void {
    const calls = this.#entry(sessionId).simulated;
    calls.delete(callId);
    calls.set(callId, call);
    if (calls.size > MAX_CALLS) calls.delete(calls.keys().next().value as string);
  }

  #entry(sessionId: string): Entry {
    let entry = this.#sessions.get(sessionId);
    if (entry) {
      // Most recently touched last: the first key is the one to forget.
      this.#sessions.delete(sessionId);
    } else {
      entry = { settings: defaultDemoSettings(), lastBreak: null, simulated: new Map() };
    }
    this.#sessions.set(sessionId, entry);
    if (this.#sessions.size > MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    return entry;
  }
}
