/**
 * The working layout: the chat beside the side panels (cart, timeline) on a wide screen; on a
 * phone, one of them at a time, chosen with a tab bar at the bottom.
 */

import type { KeyboardEvent, ReactNode } from "react";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { Icon, type IconName } from "../ui/Icon";
import { PHONE_QUERY, useMediaQuery } from "../ui/use-media-query";

export interface SidePanel {
  id: string;
  label: string;
  icon: IconName;
  /** A count shown on the phone tab. */
  badge?: number | undefined;
  /** Draws attention to the phone tab (the assistant changed the cart). */
  pulse?: boolean | undefined;
  node: ReactNode;
}

export function Workspace({
  chat,
  panels,
  tab,
  onTab,
}: {
  chat: ReactNode;
  panels: readonly SidePanel[];
  /** `chat` or a panel's id: what a phone shows. */
  tab: string;
  onTab: (tab: string) => void;
}) {
  const phone = useMediaQuery(PHONE_QUERY);
  const lang = useLang();
  const ids = ["chat", ...panels.map((p) => p.id)];

  // The tab pattern: arrows (and Home/End) move between tabs, Tab leaves the tab bar.
  const onTabKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = ids.indexOf(tab);
    const next =
      event.key === "ArrowRight"
        ? (at + 1) % ids.length
        : event.key === "ArrowLeft"
          ? (at - 1 + ids.length) % ids.length
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? ids.length - 1
              : -1;
    const id = ids[next];
    if (id === undefined) return;
    event.preventDefault();
    onTab(id);
    document.getElementById(`tab-${id}`)?.focus();
  };
  const tabs: {
    id: string;
    label: string;
    icon: IconName;
    badge?: number | undefined;
    pulse?: boolean | undefined;
  }[] = [{ id: "chat", label: pick(lang, "Chat", "聊天"), icon: "chat" }, ...panels];
  return (
    <div className={`workspace${phone ? " is-phone" : ""}`} data-tab={tab}>
      <section
        className="pane pane-chat"
        id="pane-chat"
        aria-label={pick(lang, "Chat", "聊天")}
        hidden={phone && tab !== "chat"}
        {...(phone ? { role: "tabpanel", "aria-labelledby": "tab-chat" } : {})}
      >
        {chat}
      </section>
      <aside
        className="pane pane-side"
        aria-label={pick(lang, "Cart and timeline", "购物车和时间线")}
        hidden={phone && tab === "chat"}
      >
        {panels.map((panel) => (
          <section
            key={panel.id}
            id={`pane-${panel.id}`}
            className={`panel panel-${panel.id}`}
            aria-label={panel.label}
            hidden={phone && tab !== panel.id}
            {...(phone ? { role: "tabpanel", "aria-labelledby": `tab-${panel.id}` } : {})}
          >
            {panel.node}
          </section>
        ))}
      </aside>
      {phone && (
        <div
          className="tabbar"
          role="tablist"
          aria-label={pick(lang, "Views", "视图")}
          onKeyDown={onTabKey}
        >
          {tabs.map((t) => (
            <button
              key={t.id}
              id={`tab-${t.id}`}
              type="button"
              role="tab"
              aria-selected={tab === t.id}
              aria-controls={`pane-${t.id}`}
              tabIndex={tab === t.id ? 0 : -1}
              className={`tab${t.pulse ? " is-pulsing" : ""}`}
              onClick={() => onTab(t.id)}
            >
              <Icon name={t.icon} size={18} />
              <span>{t.label}</span>
              {t.badge !== undefined && t.badge > 0 && <span className="tab-badge">{t.badge}</span>}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
