/**
 * The shopper's chats, most recently active first: each reopens with its transcript (the cart
 * is the shopper's, so it stays whichever chat is open). The chat on screen is marked.
 */

import { useCallback } from "react";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { formatWhen as when } from "../i18n/when";
import { Icon } from "../ui/Icon";
import { AccountDrawer } from "./AccountDrawer";
import { fetchChats } from "./account-api";
import { FetchedView } from "./FetchedView";
import { useFetched } from "./use-fetched";

export function ChatsDrawer({
  token,
  currentId,
  onOpen,
  onNewChat,
  onClose,
}: {
  token: string;
  currentId: string;
  onOpen: (id: string) => void;
  onNewChat: () => void;
  onClose: () => void;
}) {
  const lang = useLang();
  const load = useCallback((signal: AbortSignal) => fetchChats(token, signal), [token]);
  const { state, retry } = useFetched(load);
  return (
    <AccountDrawer
      title={pick(lang, "Your chats", "您的对话")}
      testId="chats-drawer"
      onClose={onClose}
      actions={
        <button type="button" className="btn btn-ghost btn-small" onClick={onNewChat}>
          <Icon name="new" size={14} />
          <span>{pick(lang, "New chat", "新对话")}</span>
        </button>
      }
    >
      <FetchedView state={state} retry={retry}>
        {(chats) =>
          chats.length === 0 ? (
            <p className="account-empty muted">
              {pick(
                lang,
                "No chats yet: say hello to start one.",
                "还没有对话：发一条消息开始吧。",
              )}
            </p>
          ) : (
            <ul className="chat-list">
              {chats.map((chat) => {
                const current = chat.id === currentId;
                return (
                  <li key={chat.id}>
                    <button
                      type="button"
                      className={`chat-item${current ? " is-current" : ""}`}
                      data-testid="chat-item"
                      data-chat-id={chat.id}
                      aria-current={current ? "true" : undefined}
                      onClick={() => (current ? onClose() : onOpen(chat.id))}
                    >
                      <span className="chat-item-title">
                        {chat.title || pick(lang, "(no words)", "（无文字）")}
                      </span>
                      <span className="chat-item-meta muted">
                        {when(chat.lastActivity, lang)}
                        {current && (
                          <span className="chat-item-tag">{pick(lang, "Open now", "当前")}</span>
                        )}
                      </span>
                    </button>
                  </li>
                );
              })}
            </ul>
          )
        }
      </FetchedView>
    </AccountDrawer>
  );
}
