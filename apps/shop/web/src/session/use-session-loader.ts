/**
 * Opens an agent session for the page: the remembered one (its conversation loaded and rebuilt),
 * or a new one when there is none or the server no longer knows it. Failures are shown with a
 * retry; "new conversation" forgets the remembered session and opens a fresh one.
 */

import type { AgentState } from "overlap-runtime/client";
import { useCallback, useEffect, useState } from "react";
import { ApiError, messageOf, requestJson } from "../api/http";
import type { Credentials } from "../api/types";
import { type Endpoints, sessionPath } from "./endpoints";
import { conversationState, readStoredConversation } from "./history";
import type { Slot } from "./storage";

/** How the page should follow the session's last turn once it shows the conversation. */
export type Follow =
  /** Nothing to follow. */
  | "none"
  /** A turn is running: follow it live (its log is replayed first, then it goes on). */
  | "live"
  /** The last turn has ended, but its log is still on the server: replay it for its cards and timeline. */
  | "replay";

/** Where opening the session is. */
export type SessionLoad =
  | { status: "loading" }
  | {
      status: "ready";
      credentials: Credentials;
      initialState: AgentState;
      follow: Follow;
      /** Something the user should know (their old conversation could not be found). */
      notice: string | undefined;
    }
  | { status: "error"; error: ApiError };

/** What {@link useSessionLoader} needs. */
export interface SessionLoaderOptions {
  endpoints: Endpoints;
  /** Where the session is remembered. */
  slot: Slot<Credentials>;
  /** Creates a session (the merchant's needs the merchant token). */
  create: (signal: AbortSignal) => Promise<Credentials>;
}

const FORGOTTEN =
  "Your previous conversation is no longer available on the server, so a new one was started.";

/** Opens the session; `retry` tries again after a failure, `restart` starts a new conversation. */
export function useSessionLoader(options: SessionLoaderOptions): {
  load: SessionLoad;
  retry: () => void;
  restart: () => void;
} {
  const { endpoints, slot, create } = options;
  const [load, setLoad] = useState<SessionLoad>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    // `attempt` is read so that retry and restart run this effect again.
    void attempt;
    const controller = new AbortController();
    const { signal } = controller;
    setLoad({ status: "loading" });
    openSession(endpoints, slot, create, signal).then(
      (ready) => {
        if (!signal.aborted) setLoad(ready);
      },
      (err: unknown) => {
        if (signal.aborted) return;
        setLoad({
          status: "error",
          error: err instanceof ApiError ? err : new ApiError(0, "failed", messageOf(err)),
        });
      },
    );
    return () => controller.abort();
  }, [endpoints, slot, create, attempt]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  const restart = useCallback(() => {
    slot.clear();
    setAttempt((n) => n + 1);
  }, [slot]);
  return { load, retry, restart };
}

async function openSession(
  endpoints: Endpoints,
  slot: Slot<Credentials>,
  create: (signal: AbortSignal) => Promise<Credentials>,
  signal: AbortSignal,
): Promise<Extract<SessionLoad, { status: "ready" }>> {
  const stored = slot.load();
  let notice: string | undefined;
  if (stored) {
    try {
      const conversation = await requestJson(
        sessionPath(endpoints, stored.id),
        readStoredConversation,
        { token: stored.token, signal },
      );
      const replay = conversation.hasTurnLog;
      return {
        status: "ready",
        credentials: stored,
        initialState: conversationState(conversation.messages, { stopBeforeLastTurn: replay }),
        follow: !replay ? "none" : conversation.running ? "live" : "replay",
        notice: undefined,
      };
    } catch (err) {
      // The token or the session is gone (a reset database, another server): start over.
      if (!(err instanceof ApiError) || ![401, 403, 404].includes(err.status)) throw err;
      slot.clear();
      notice = FORGOTTEN;
    }
  }
  const credentials = await create(signal);
  slot.save(credentials);
  return {
    status: "ready",
    credentials,
    initialState: conversationState([], { stopBeforeLastTurn: false }),
    follow: "none",
    notice,
  };
}
