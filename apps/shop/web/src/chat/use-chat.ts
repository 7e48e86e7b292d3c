/**
 * One agent conversation in the page: `overlap-runtime/react`'s session over this shop's routes (send a
 * message, resume with `Last-Event-ID`), the page-load follow-up of the last turn, and Stop, which
 * cancels the turn on the server (the stream then ends with the turn's own `error` and `done`, so
 * the conversation on screen ends exactly as the stored one was repaired).
 */

import type { AgentState } from "overlap-runtime/client";
import { useAgentSession } from "overlap-runtime/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { request, requestJson } from "../api/http";
import { type Credentials, isRecord } from "../api/types";
import { type Endpoints, sessionPath } from "../session/endpoints";
import type { Follow } from "../session/use-session-loader";

/** What the chat UI uses. */
export interface Chat {
  state: AgentState;
  /** Sends a message (ignored while a turn runs). */
  send: (text: string) => void;
  /** Cancels the running turn on the server. */
  stop: () => void;
  /** Stop was pressed and the turn has not ended yet. */
  stopping: boolean;
  /** Follows the latest turn again (after a lost connection). */
  reconnect: () => void;
  /** How many turns came from the stored conversation (the page sent none of them). */
  restoredTurns: number;
  /** Indexes in `state.turns` of user messages the shopper removed (a failed send). */
  removed: ReadonlySet<number>;
  /** Sends the unanswered message at this index of `state.turns` again, in its place. */
  retry: (index: number) => void;
  /** Takes the unanswered message at this index of `state.turns` off the page. */
  remove: (index: number) => void;
  /**
   * The page is replaying the last, already finished turn from the server's log: its events are
   * history, not news (the cart must not take their carts for current).
   */
  replaying: boolean;
}

/** How long Stop waits for the server before it just stops reading. */
const CANCEL_TIMEOUT_MS = 5_000;

export function useChat(
  endpoints: Endpoints,
  credentials: Credentials,
  initialState: AgentState,
  follow: Follow,
): Chat {
  const { id, token } = credentials;
  const session = useAgentSession({
    initialState,
    send: (text, signal) =>
      request(sessionPath(endpoints, id, "messages"), {
        method: "POST",
        token,
        json: { text },
        signal,
      }),
    resume: (lastEventId, signal) =>
      request(sessionPath(endpoints, id, "stream"), {
        token,
        headers: {
          accept: "text/event-stream",
          ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
        },
        signal,
      }),
  });
  const [replaying, setReplaying] = useState(follow === "replay");
  const [stopping, setStopping] = useState(false);
  const followed = useRef(false);
  const { resume } = session;

  useEffect(() => {
    if (follow === "none" || followed.current) return;
    followed.current = true;
    void resume().finally(() => setReplaying(false));
  }, [follow, resume]);

  const { running } = session.state;
  useEffect(() => {
    if (!running) setStopping(false);
  }, [running]);

  const { send: sendMessage, stop: stopReading } = session;
  const send = useCallback(
    (text: string) => {
      const trimmed = text.trim();
      if (trimmed !== "") void sendMessage(trimmed);
    },
    [sendMessage],
  );

  const stop = useCallback(() => {
    setStopping(true);
    requestJson(sessionPath(endpoints, id, "cancel"), (v) => (isRecord(v) ? v : undefined), {
      method: "POST",
      token,
      signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
    }).catch(() => {
      // The server did not confirm: at least stop reading (the turn may go on over there).
      stopReading();
      setStopping(false);
    });
  }, [endpoints, id, token, stopReading]);

  const reconnect = useCallback(() => void resume(), [resume]);

  const [restoredTurns] = useState(initialState.turns.length);
  // A failed send stays in the client's state (it is append-only); the page hides it instead.
  const [removed, setRemoved] = useState<ReadonlySet<number>>(() => new Set());
  const turns = useRef(session.state.turns);
  turns.current = session.state.turns;
  const remove = useCallback((index: number) => {
    setRemoved((set) => new Set(set).add(index));
  }, []);
  const retry = useCallback(
    (index: number) => {
      const turn = turns.current[index];
      if (turn?.role !== "user") return;
      remove(index);
      send(turn.text);
    },
    [remove, send],
  );

  return {
    state: session.state,
    send,
    stop,
    stopping,
    reconnect,
    replaying,
    restoredTurns,
    removed,
    retry,
    remove,
  };
}
