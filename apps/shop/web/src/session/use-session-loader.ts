/**
 * Opens an agent session for the page: the remembered one (its conversation loaded and rebuilt),
 * or a new one when there is none or the server no longer knows it. Failures are shown with a
 * retry. "New conversation" opens a fresh session: for the shopper a new chat of the same shopper
 * (`newChat`, with the remembered token: the cart and orders stay), for the merchant a new
 * session. `open(id)` switches to another of the shopper's chats with the same token. While a
 * switch is under way the page keeps showing the session it has (`switching`).
 */

import type { AgentState } from "overlap-runtime/client";
import { useCallback, useEffect, useState } from "react";
import { ApiError, messageOf, requestJson } from "../api/http";
import type { Credentials } from "../api/types";
import { type Lang, pick } from "../i18n/lang";
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
  /**
   * Creates a new chat of the same owner as `current` (the shopper's: its token stands for the
   * shopper). Without it, a new conversation is a fresh session from `create`.
   */
  newChat?: (signal: AbortSignal, current: Credentials) => Promise<Credentials>;
  /** The language of the notices (default English). */
  lang?: () => Lang;
}

const english = (): Lang => "en";

/** What to open next. */
type Intent =
  | { kind: "remembered" }
  | { kind: "new" }
  /** A new owner, forgetting the remembered one (the shopper's "Forget me on this device"). */
  | { kind: "fresh"; notice: string | undefined };

/**
 * The remembered token no longer opens anything: it expired, it was revoked ("Forget me" on
 * another tab), or the server does not know it (a reset database, another server).
 */
const forgotten = (lang: Lang) =>
  pick(
    lang,
    "Your saved session on this device has ended (it expired or was revoked, or the server no longer knows it), so you are starting again as a new shopper.",
    "此设备上保存的会话已结束（已过期或已被撤销，或服务器已不再认识它），所以您将作为新顾客重新开始。",
  );

/** The merchant's remembered session no longer opens (expired, a reset database, another server). */
const sessionGone = (lang: Lang) =>
  pick(
    lang,
    "Your previous conversation is no longer available (it expired, or the server no longer knows it), so a new one was started.",
    "您之前的对话已不可用（已过期，或服务器已不再认识它），所以开始了一个新的对话。",
  );

/** The token is valid but the chat is not there for it: a new chat of the same shopper. */
const chatGone = (lang: Lang) =>
  pick(
    lang,
    "That conversation could not be opened, so a new chat was started. Your cart is kept.",
    "那个对话无法打开，所以开始了一个新的对话。购物车保持不变。",
  );

/**
 * Opens the session; `retry` tries again after a failure, `restart` starts a new conversation,
 * `open(id)` opens another chat of the same shopper, `startOver(notice)` forgets the remembered
 * session and opens one of a new owner (a new shopper), showing `notice`.
 */
export function useSessionLoader(options: SessionLoaderOptions): {
  load: SessionLoad;
  /** A new conversation or another chat is being opened; `load` still shows the current one. */
  switching: boolean;
  retry: () => void;
  restart: () => void;
  open: (id: string) => void;
  startOver: (notice?: string) => void;
} {
  const { endpoints, slot, create, newChat } = options;
  const langOf = options.lang ?? english;
  const [load, setLoad] = useState<SessionLoad>({ status: "loading" });
  const [switching, setSwitching] = useState(false);
  const [request, setRequest] = useState<{ attempt: number; intent: Intent }>({
    attempt: 0,
    intent: { kind: "remembered" },
  });

  useEffect(() => {
    const { intent } = request;
    const controller = new AbortController();
    const { signal } = controller;
    // The first open shows "loading"; a switch keeps the current session on screen meanwhile.
    setLoad((current) => (current.status === "ready" ? current : { status: "loading" }));
    setSwitching(true);
    const opened =
      intent.kind === "new"
        ? openNew(slot, create, newChat, signal, langOf)
        : intent.kind === "fresh"
          ? openNew(slot, create, undefined, signal, langOf, intent.notice)
          : openSession(endpoints, slot, create, newChat, signal, langOf);
    opened.then(
      (ready) => {
        if (signal.aborted) return;
        setLoad(ready);
        setSwitching(false);
      },
      (err: unknown) => {
        if (signal.aborted) return;
        setSwitching(false);
        setLoad({
          status: "error",
          error: err instanceof ApiError ? err : new ApiError(0, "failed", messageOf(err)),
        });
      },
    );
    return () => controller.abort();
  }, [endpoints, slot, create, newChat, langOf, request]);

  const retry = useCallback(
    () => setRequest((r) => ({ attempt: r.attempt + 1, intent: r.intent })),
    [],
  );
  const restart = useCallback(() => {
    if (!newChat) slot.clear();
    setRequest((r) => ({ attempt: r.attempt + 1, intent: { kind: "new" } }));
  }, [slot, newChat]);
  const open = useCallback(
    (id: string) => {
      const current = slot.load();
      if (!current) return;
      // The same token opens every chat of its shopper.
      slot.save({ id, token: current.token });
      setRequest((r) => ({ attempt: r.attempt + 1, intent: { kind: "remembered" } }));
    },
    [slot],
  );
  const startOver = useCallback(
    (notice?: string) => {
      slot.clear();
      setRequest((r) => ({ attempt: r.attempt + 1, intent: { kind: "fresh", notice } }));
    },
    [slot],
  );
  return { load, switching, retry, restart, open, startOver };
}

/** A new conversation: a new chat of the remembered owner when possible, else a fresh session. */
async function openNew(
  slot: Slot<Credentials>,
  create: (signal: AbortSignal) => Promise<Credentials>,
  newChat: SessionLoaderOptions["newChat"],
  signal: AbortSignal,
  langOf: () => Lang,
  firstNotice?: string,
): Promise<Extract<SessionLoad, { status: "ready" }>> {
  const current = slot.load();
  let credentials: Credentials | undefined;
  let notice = firstNotice;
  if (newChat && current) {
    try {
      credentials = await newChat(signal, current);
    } catch (err) {
      // The shopper is gone (a reset database): start over as a new one, and say so.
      if (!(err instanceof ApiError) || ![401, 403, 404].includes(err.status)) throw err;
      slot.clear();
      notice = forgotten(langOf());
    }
  }
  credentials ??= await create(signal);
  slot.save(credentials);
  return {
    status: "ready",
    credentials,
    initialState: conversationState([], { stopBeforeLastTurn: false }),
    follow: "none",
    notice,
  };
}

async function openSession(
  endpoints: Endpoints,
  slot: Slot<Credentials>,
  create: (signal: AbortSignal) => Promise<Credentials>,
  newChat: SessionLoaderOptions["newChat"],
  signal: AbortSignal,
  langOf: () => Lang,
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
        initialState: conversationState(conversation.messages, {
          stopBeforeLastTurn: replay,
          display: conversation.display,
        }),
        follow: !replay ? "none" : conversation.running ? "live" : "replay",
        notice: undefined,
      };
    } catch (err) {
      if (!(err instanceof ApiError) || ![401, 403, 404].includes(err.status)) throw err;
      // The token still stands for its shopper but this chat is not theirs (or gone): a new chat
      // of the same shopper, so the cart stays.
      if (newChat && err.status === 404) {
        return openNew(slot, create, newChat, signal, langOf, chatGone(langOf()));
      }
      // The token or the session is gone (a reset database, another server): start over.
      slot.clear();
      notice = endpoints.kind === "shopper" ? forgotten(langOf()) : sessionGone(langOf());
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
