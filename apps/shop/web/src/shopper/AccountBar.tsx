/**
 * The bar at the top of the shopper's chat: the shopper's chats and orders, "Forget me" (this
 * device stops remembering the shopper, after a confirmation), and a new chat (the cart stays:
 * it is the shopper's). Kept in the chat pane rather than the page's top bar, so
 * every control fits whole on a phone too.
 */

import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { Icon } from "../ui/Icon";

export function AccountBar({
  onChats,
  onOrders,
  onNewChat,
  onForget,
  switching,
}: {
  onChats: () => void;
  onOrders: () => void;
  onNewChat: () => void;
  /** Asks to confirm "Forget me on this device". */
  onForget: () => void;
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
      <button
        type="button"
        className="btn btn-ghost btn-small account-bar-forget"
        onClick={onForget}
        disabled={switching}
        title={pick(lang, "Forget me on this device", "在此设备上忘记我")}
        aria-label={pick(lang, "Forget me on this device", "在此设备上忘记我")}
        data-testid="forget-me"
      >
        <Icon name="logout" size={14} />
        {/* On a phone only the icon: the bar's buttons must all fit. */}
        <span className="account-bar-label">{pick(lang, "Forget me", "忘记我")}</span>
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
