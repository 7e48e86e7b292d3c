/**
 * The React binding of the client: one {@link AgentStreamClient} per component instance, its state
 * read with `useSyncExternalStore` (no tearing under concurrent rendering), and nothing else from
 * React. The transport functions may change between renders (new closures over a session id);
 * the client always calls the latest ones.
 */

import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import type { AgentState } from "../client/agent-state.js";
import { AgentStreamClient, type AgentStreamClientOptions } from "../client/agent-stream-client.js";

/** Options of {@link useAgentSession}. Read once, except `send` and `resume`, which may change. */
export interface UseAgentSessionOptions extends Omit<AgentStreamClientOptions, "onState"> {
  /** Follow a turn still running on the server when the component mounts (a page load). */
  resumeOnMount?: boolean | undefined;
}

/** What {@link useAgentSession} returns. Functions are stable across renders. */
export interface AgentSession {
  state: AgentState;
  /** Shows and sends a message, then follows the turn; resolves when it ended. Never rejects. */
  send: (text: string) => Promise<void>;
  /** Stops reading locally (call the app's cancel endpoint to stop the turn itself). */
  stop: () => void;
  /** Follows the latest turn from the last applied event (see `resumeIfRunning`). */
  resume: () => Promise<void>;
}

/**
 * Follows an agent session's turns; stops reading when the component unmounts. One client follows
 * one conversation: give the component a `key` per session so another session gets a fresh state.
 */
export function useAgentSession(options: UseAgentSessionOptions): AgentSession {
  const latest = useRef(options);
  useEffect(() => {
    latest.current = options;
  });
  const [client] = useState(
    () =>
      new AgentStreamClient({
        ...options,
        send: (text, signal) => latest.current.send(text, signal),
        resume: (lastEventId, signal) => latest.current.resume(lastEventId, signal),
      }),
  );
  const state = useSyncExternalStore(client.subscribe, client.getState, client.getState);
  useEffect(() => {
    if (latest.current.resumeOnMount) void client.resumeIfRunning();
    return () => client.stop();
  }, [client]);
  const actions = useMemo(() => sessionActions(client), [client]);
  return useMemo(() => ({ state, ...actions }), [state, actions]);
}

/** The session's functions, bound to `client`. */
export function sessionActions(client: AgentStreamClient): Omit<AgentSession, "state"> {
  return {
    send: (text) => client.send(text),
    stop: () => client.stop(),
    resume: () => client.resumeIfRunning(),
  };
}
