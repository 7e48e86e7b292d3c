/**
 * The developer view: tool names, call ids, arguments and timings instead of sentences. One
 * switch for the whole page, remembered in localStorage (every component reading it follows a
 * change at once, and other tabs on their next load).
 */

import { useCallback, useSyncExternalStore } from "react";

const KEY = "trail-run.developer-view";
const listeners = new Set<() => void>();
let cached: boolean | undefined;

function read(): boolean {
  if (cached !== undefined) return cached;
  try {
    cached = window.localStorage.getItem(KEY) === "on";
  } catch {
    cached = false;
  }
  return cached;
}

function write(on: boolean): void {
  cached = on;
  try {
    if (on) window.localStorage.setItem(KEY, "on");
    else window.localStorage.removeItem(KEY);
  } catch {
    // Storage blocked: the switch holds for this page only.
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Whether the developer view is on, and a way to switch it. */
export function useDeveloperView(): [boolean, (on: boolean) => void] {
  const on = useSyncExternalStore(subscribe, read, () => false);
  const set = useCallback((next: boolean) => write(next), []);
  return [on, set];
}
