/** The chat column: the conversation, the client's own errors (with a way out), the message box. */

import { CONNECTION_LOST } from "overlap-runtime/client";
import type { ReactNode } from "react";
import type { CardActions } from "../cards/ProductCards";
import { Icon } from "../ui/Icon";
import { Composer } from "./Composer";
import { MessageList } from "./MessageList";
import type { Chat } from "./use-chat";

/** Error codes meaning the session is gone for this page (a reset server, an expired token). */
const SESSION_GONE: ReadonlySet<string> = new Set(["unauthorized", "forbidden", "not_found"]);

export function ChatPanel({
  chat,
  actions,
  agentName,
  placeholder,
  empty,
  notice,
  onShowTimeline,
  onRestart,
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
}) {
  const { state } = chat;
  const last = state.turns.at(-1);
  // An error of the turn itself is shown in the turn; this is the client's own (network, HTTP).
  const clientError =
    state.error && !(last?.role === "assistant" && last.error === state.error)
      ? state.error
      : undefined;
  const lastUserText = [...state.turns].reverse().find((t) => t.role === "user")?.text;
  return (
    <div className="chat">
      <MessageList
        state={state}
        actions={actions}
        onShowTimeline={onShowTimeline}
        onRetry={chat.send}
        empty={empty}
        agentName={agentName}
      />
      <div className="chat-bottom">
        {notice && (
          <p className="banner banner-info" role="status">
            <Icon name="info" size={15} />
            {notice}
          </p>
        )}
        {clientError && !state.running && (
          <div className="banner banner-error" role="alert" data-testid="chat-error">
            <Icon name="alert" size={15} />
            <span>{clientError.message}</span>
            {clientError.code === CONNECTION_LOST.code || clientError.code === "turn_running" ? (
              <button type="button" className="btn btn-link" onClick={chat.reconnect}>
                {clientError.code === "turn_running" ? "Show the running reply" : "Reconnect"}
              </button>
            ) : SESSION_GONE.has(clientError.code) ? (
              <button type="button" className="btn btn-link" onClick={onRestart}>
                Start a new conversation
              </button>
            ) : (
              lastUserText && (
                <button
                  type="button"
                  className="btn btn-link"
                  onClick={() => chat.send(lastUserText)}
                >
                  Send again
                </button>
              )
            )}
          </div>
        )}
        <Composer
          running={state.running}
          stopping={chat.stopping}
          onSend={chat.send}
          onStop={chat.stop}
          placeholder={placeholder}
        />
      </div>
    </div>
  );
}
