/** The server's `/healthz`: which model answers (the scripted badge) and whether it is reachable. */

import { useEffect, useState } from "react";
import { requestJson } from "../api/http";
import { type Health, readHealth } from "../api/types";

export type HealthState =
  | { status: "loading" }
  | { status: "ok"; health: Health }
  | { status: "down" };

const RETRY_MS = 10_000;

export function useHealth(): HealthState {
  const [state, setState] = useState<HealthState>({ status: "loading" });
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      requestJson("/healthz", readHealth, { signal: controller.signal }).then(
        (health) => setState({ status: "ok", health }),
        () => {
          if (controller.signal.aborted) return;
          setState({ status: "down" });
          timer = setTimeout(check, RETRY_MS);
        },
      );
    };
    check();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, []);
  return state;
}
