/** Loads something when a view opens, with a retry; a late answer for a closed view is dropped. */

import { useCallback, useEffect, useState } from "react";
import { ApiError, messageOf } from "../api/http";

/** Where the loading is. */
export type Fetched<T> =
  | { status: "loading" }
  | { status: "ready"; value: T }
  | { status: "error"; message: string; unreachable: boolean };

/** Runs `load` now and on `retry`. */
export function useFetched<T>(load: (signal: AbortSignal) => Promise<T>): {
  state: Fetched<T>;
  retry: () => void;
} {
  const [state, setState] = useState<Fetched<T>>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    void attempt;
    const controller = new AbortController();
    setState({ status: "loading" });
    load(controller.signal).then(
      (value) => {
        if (!controller.signal.aborted) setState({ status: "ready", value });
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setState({
          status: "error",
          message: messageOf(err),
          unreachable: err instanceof ApiError && err.status === 0,
        });
      },
    );
    return () => controller.abort();
  }, [load, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, retry };
}
