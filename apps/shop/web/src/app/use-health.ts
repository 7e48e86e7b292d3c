/**
 * The server's `/healthz`: which model answers (the scripted badge) and whether the server can be
 * reached. While it cannot, it is asked again with a growing pause (1 s, 2 s, 4 s... at most
 * 15 s; at once when the browser says it is back online or the tab is shown again); otherwise
 * every 30 s. Any part of the page that fails to reach the server says so
 * (`reportUnreachable`), which turns the badge to "unreachable" at once and starts the checks;
 * `recoveries` counts the times the server answered again after that, so error states can clear
 * themselves.
 */

import { createContext, useCallback, useContext, useEffect, useRef, useState } from "react";
import { requestJson } from "../api/http";
import { type Health, readHealth } from "../api/types";

export type HealthState =
  | { status: "loading" }
  | { status: "ok"; health: Health }
  | { status: "down" };

/** What the page knows of the server's health, and how to tell it of a failure. */
export interface HealthModel {
  state: HealthState;
  /** Increases each time the server answers again after being unreachable. */
  recoveries: number;
  /** A request could not reach the server: show it and check until it answers again. */
  reportUnreachable: () => void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 15_000;
const OK_POLL_MS = 30_000;

export function useHealth(): HealthModel {
  const [state, setState] = useState<HealthState>({ status: "loading" });
  const [recoveries, setRecoveries] = useState(0);
  const checkNow = useRef<() => void>(() => {});

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let down = false;
    let retryMs = FIRST_RETRY_MS;
    let inFlight = false;

    const schedule = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(check, ms);
    };
    const check = () => {
      if (inFlight || controller.signal.aborted) return;
      inFlight = true;
      clearTimeout(timer);
      requestJson("/healthz", readHealth, {
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(8_000)]),
      }).then(
        (health) => {
          inFlight = false;
          if (controller.signal.aborted) return;
          if (down) setRecoveries((n) => n + 1);
          down = false;
          retryMs = FIRST_RETRY_MS;
          setState({ status: "ok", health });
          schedule(OK_POLL_MS);
        },
        () => {
          inFlight = false;
          if (controller.signal.aborted) return;
          down = true;
          setState({ status: "down" });
          schedule(retryMs);
          retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
        },
      );
    };
    checkNow.current = () => {
      if (!down) {
        down = true;
        retryMs = FIRST_RETRY_MS;
        setState({ status: "down" });
      }
      check();
    };
    const wake = () => {
      if (down && document.visibilityState !== "hidden") check();
    };
    window.addEventListener("online", wake);
    document.addEventListener("visibilitychange", wake);
    check();
    return () => {
      controller.abort();
      clearTimeout(timer);
      window.removeEventListener("online", wake);
      document.removeEventListener("visibilitychange", wake);
    };
  }, []);

  const reportUnreachable = useCallback(() => checkNow.current(), []);
  return { state, recoveries, reportUnreachable };
}

export const HealthContext = createContext<HealthModel>({
  state: { status: "loading" },
  recoveries: 0,
  reportUnreachable: () => {},
});

/** The page's health model (given by `App`). */
export function useHealthModel(): HealthModel {
  return useContext(HealthContext);
}

/**
 * For a part of the page that failed because the server could not be reached: reports it, and
 * calls `retry` when the server answers again.
 */
export function useRetryWhenBack(unreachable: boolean, retry: () => void): void {
  const { recoveries, reportUnreachable } = useHealthModel();
  useEffect(() => {
    if (unreachable) reportUnreachable();
  }, [unreachable, reportUnreachable]);
  const seen = useRef(recoveries);
  useEffect(() => {
    if (recoveries === seen.current) return;
    seen.current = recoveries;
    if (unreachable) retry();
  }, [recoveries, unreachable, retry]);
}
