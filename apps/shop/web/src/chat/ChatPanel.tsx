/**
 * The chat column: the conversation, the client's own errors (with a way out), the message box.
 *
 * A message that could not be sent stays under its bubble with "Send again" and "Remove". A
 * lost connection shows a banner with "Reconnect". Both report the server as unreachable (the
 * badge turns, `/healthz` is checked with a growing pause) and clear themselves when it answers
 * again: the lost reply is followed again, the unsent message says the server is back.
 */

import { type AgentError, CONNECTION_LOST, NETWORK_ERROR } from "overlap-runtime/client";
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import type { Cart } from "../api/types";
import { useHealthModel } from "../app/use-health";
import type { CardActions } from "../cards/ProductCards";
import { errorWords } from "../i18n/error-words";
import { detectLang, type Lang, pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { useDeveloperView } from "../ui/developer-view";
import { Icon } from "../ui/Icon";
import { Composer } from "./Composer";
import { isEmptyMessage } from "./empty-message";
import { MessageList } from "./MessageList";
import { type ProductBook, productBook } from "./product-book";
import type { Chat } from "./use-chat";

/** Error codes meaning the session is gone for this page (a reset server, an expired token). */
const SESSION_GONE: ReadonlySet<string> = new Set(["unauthorized", "forbidden", "not_found"]);

/** Client errors that mean the server could not be reached. */
const UNREACHABLE: ReadonlySet<string> = new Set([NETWORK_ERROR.code, CONNECTION_LOST.code]);

export function ChatPanel({
  chat,
  actions,
  agentName,
  placeholder,
  empty,
  notice,
  onShowTimeline,
  onRestart,
  book: givenBook,
  cart,
}: {
  chat: Chat;
  actions: CardActions;
  agentName: string;
  placeholder: string;
  empty: ReactNode;
  notice: string | undefined;
  onShowTimeline: (turnIndex: number) => void;
  /** Starts a new conversation (when the server no longer knows this one). */
  onRestart: () => void;
  /** Product names the page knows; built from the conversation (and `cart`) when not given. */
  book?: ProductBook | undefined;
  cart?: Cart | undefined;
}) {
  const { state } = chat;
  const [developer] = useDeveloperView();
  const pageLang = useLang();
  const health = useHealthModel();
  const ownBook = useMemo(() => givenBook ?? productBook(state, cart), [givenBook, state, cart]);
  const { turns, running } = state;
  const lastIndex = turns.length - 1;
  const last = turns[lastIndex];
  const error = running ? undefined : state.error;
  // A message this page sent got no reply: it could not be sent, or was refused.
  const sentHere = lastIndex >= chat.restoredTurns;
  const unsent =
    error && last?.role === "user" && sentHere && !chat.removed.has(lastIndex)
      ? lastIndex
      : undefined;
  // The client's own error about following a reply (a lost connection, a failed resume after a
  // reload): not the turn's own error, and moot once that reply has come to its end after all.
  const lostReply =
    error &&
    ((last?.role === "assistant" && last.error !== error && last.done === undefined) ||
      (last?.role === "user" && !sentHere))
      ? error
      : undefined;

  const unreachable = error !== undefined && UNREACHABLE.has(error.code);
  const { reportUnreachable, recoveries } = health;
  useEffect(() => {
    if (unreachable) reportUnreachable();
  }, [unreachable, reportUnreachable]);

  // When the server answers again: follow a lost reply again, tell an unsent message.
  const [backFor, setBackFor] = useState<AgentError | undefined>();
  useEffect(() => {
    if (running) setBackFor(undefined);
  }, [running]);
  const seenRecoveries = useRef(recoveries);
  const { reconnect } = chat;
  useEffect(() => {
    if (recoveries === seenRecoveries.current) return;
    seenRecoveries.current = recoveries;
    if (!unreachable) return;
    if (lostReply) reconnect();
    else setBackFor(error);
  }, [recoveries, unreachable, lostReply, error, reconnect]);

  const unsentText = unsent !== undefined && last?.role === "user" ? last.text : "";
  return (
    <div className="chat">
      <MessageList
        state={state}
        actions={actions}
        onShowTimeline={onShowTimeline}
        onRetry={chat.send}
        empty={empty}
        agentName={agentName}
        book={ownBook}
        developer={developer}
        removed={chat.removed}
        after={
          unsent !== undefined && error
            ? {
                index: unsent,
                node: (
                  <UnsentNote
                    // A message without visible text has no language of its own: the page's.
                    lang={isEmptyMessage(unsentText) ? pageLang : detectLang(unsentText)}
                    error={error}
                    serverBack={backFor === error && health.state.status === "ok"}
                    serverDown={health.state.status === "down"}
                    onRetry={() => chat.retry(unsent)}
                    onRemove={() => chat.remove(unsent)}
                    onRestart={onRestart}
                    onShowRunning={() => {
                      chat.remove(unsent);
                      reconnect();
                    }}
                  />
                ),
              }
            : undefined
        }
      />
      <div className="chat-bottom">
        {notice && (
          <p className="banner banner-info" role="status">
            <Icon name="info" size={15} />
            {notice}
          </p>
        )}
        {lostReply && (
          <div className="banner banner-error" role="alert" data-testid="chat-error">
            <Icon name="alert" size={15} />
            <span>
              {errorWords(lostReply, pageLang)}
              {health.state.status === "down" && unreachable
                ? pick(
                    pageLang,
                    " The page reconnects by itself when the server answers again.",
                    "服务器恢复后，页面会自动重新连接。",
                  )
                : ""}
            </span>
            {SESSION_GONE.has(lostReply.code) ? (
              <button type="button" className="btn btn-link" onClick={onRestart}>
                {pick(pageLang, "Start a new conversation", "开始新对话")}
              </button>
            ) : lostReply.code === "turn_lost" ? null : (
              <button type="button" className="btn btn-link" onClick={reconnect}>
                {pick(pageLang, "Reconnect", "重新连接")}
              </button>
            )}
          </div>
        )}
        <Composer
          running={running}
          stopping={chat.stopping}
          onSend={chat.send}
          onStop={chat.stop}
          placeholder={placeholder}
        />
      </div>
    </div>
  );
}

/** Under a message that got no reply: why, and what can be done about it. */
function UnsentNote({
  lang,
  error,
  serverBack,
  serverDown,
  onRetry,
  onRemove,
  onRestart,
  onShowRunning,
}: {
  lang: Lang;
  error: AgentError;
  serverBack: boolean;
  serverDown: boolean;
  onRetry: () => void;
  onRemove: () => void;
  onRestart: () => void;
  onShowRunning: () => void;
}) {
  const network = error.code === NETWORK_ERROR.code;
  const why = network
    ? serverBack
      ? pick(
          lang,
          "Not sent: the server could not be reached. It answers again now.",
          "没有发出：当时连不上服务器。现在服务器已恢复。",
        )
      : serverDown
        ? pick(
            lang,
            "Not sent: the server cannot be reached. The page keeps checking.",
            "没有发出：连不上服务器。页面会继续检查。",
          )
        : pick(lang, "Not sent: the server could not be reached.", "没有发出：连不上服务器。")
    : error.code === "empty_message"
      ? pick(
          lang,
          "Not sent: the message has no visible text. Write something to send.",
          "没有发出：消息里没有可见的文字。请写点内容再发送。",
        )
      : `${pick(lang, "Not answered:", "没有回复：")} ${errorWords(error, lang)}`;
  return (
    <div className="unsent" role="alert" data-testid="unsent-message" data-code={error.code}>
      <Icon name="alert" size={14} />
      <span
        className="unsent-why"
        lang={network || error.code === "empty_message" ? lang : undefined}
      >
        {why}
      </span>
      <span className="unsent-actions">
        {SESSION_GONE.has(error.code) ? (
          <button type="button" className="btn btn-link" onClick={onRestart}>
            {pick(lang, "Start a new conversation", "开始新对话")}
          </button>
        ) : error.code === "empty_message" ? null : error.code === "turn_running" ? (
          <button type="button" className="btn btn-link" onClick={onShowRunning}>
            {pick(lang, "Show the running reply", "查看正在进行的回复")}
          </button>
        ) : (
          <button type="button" className="btn btn-link" onClick={onRetry}>
            {pick(lang, "Send again", "重新发送")}
          </button>
        )}
        <button type="button" className="btn btn-link btn-link-muted" onClick={onRemove}>
          {pick(lang, "Remove", "删除")}
        </button>
      </span>
    </div>
  );
}
