/**
 * The bar at the top of the shopper's chat: the shopper's chats and orders, and a new chat (the
 * cart stays: it is the shopper's). Kept in the chat pane rather than the page's top bar, so
 * every control fits whole on a phone too.
 */

import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { Icon } from "../ui/Icon";

export function AccountBar({
  onChats,
  onOrders,
  onNewChat,
  switching,
}: {
  onChats: () => void;
  onOrders: () => void;
  onNewChat: () => void;
  /** A chat is being opened: no second switch meanwhile. */
  switching: boolean;
}) {
  const lang = useLang();
  return (
    <nav
      className="account-bar"
      aria-label={pick(lang, "Chats and orders", "对话和订单")}
      lang={lang}
    >
      <button type="button" className="btn btn-ghost btn-small" onClick={onChats}>
        <Icon name="chat" size={14} />
        <span>{pick(lang, "Chats", "对话")}</span>
      </button>
      <button type="button" className="btn btn-ghost btn-small" onClick={onOrders}>
        <Icon name="check" size={14} />
        <span>{pick(lang, "Orders", "订单")}</span>
      </button>
      <span className="account-bar-spacer" />
      <button
        type="button"
        className="btn btn-ghost btn-small"
        onClick={onNewChat}
        disabled={switching}
        title={pick(lang, "Start a new chat (your cart stays)", "开始新对话（购物车保留）")}
      >
        <Icon name="new" size={14} />
        <span>{pick(lang, "New chat", "新对话")}</span>
      </button>
    </nav>
  );
}
