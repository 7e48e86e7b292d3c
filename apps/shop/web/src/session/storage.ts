/**
 * Where sessions are remembered. The shopper's session (id + token) lives in localStorage, so a
 * reload (or a new tab) continues the same conversation and cart. The merchant's token and session
 * live in sessionStorage: they end with the tab. Storage can be unavailable (private modes, a
 * blocked origin): then nothing is remembered and everything else still works.
 */

import { readCredentials } from "../api/types";

function storageOf(kind: "local" | "session"): Storage | undefined {
  try {
    return kind === "local" ? window.localStorage : window.sessionStorage;
  } catch {
    return undefined;
  }
}

/** A remembered value of one key. */
export interface Slot<T> {
  load(): T | undefined;
  save(value: T): void;
  clear(): void;
}

function slot<T>(
  kind: "local" | "session",
  key: string,
  read: (value: unknown) => T | undefined,
): Slot<T> {
  return {
    load() {
      try {
        const raw = storageOf(kind)?.getItem(key);
        return raw ? read(JSON.parse(raw)) : undefined;
      } catch {
        return undefined;
      }
    },
    save(value) {
      try {
        storageOf(kind)?.setItem(key, JSON.stringify(value));
      } catch {
        // Full or blocked: the session just is not remembered.
      }
    },
    clear() {
      try {
        storageOf(kind)?.removeItem(key);
      } catch {
        // Nothing to clear.
      }
    },
  };
}

const readToken = (value: unknown) =>
  typeof value === "string" && value.length > 0 ? value : undefined;

/** The shopper's session. */
export const shopperSession = slot("local", "trail-run.shopper-session", readCredentials);
/** The merchant's session, for this tab. */
export const merchantSession = slot("session", "trail-run.merchant-session", readCredentials);
/** The merchant token, for this tab. */
export const merchantToken = slot("session", "trail-run.merchant-token", readToken);
