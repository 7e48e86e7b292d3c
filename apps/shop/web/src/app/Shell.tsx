/** The page frame: brand, the model badge (honest about the scripted model), views, actions. */

import type { ReactNode } from "react";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { DeveloperToggle } from "../ui/DeveloperToggle";
import { Icon } from "../ui/Icon";
import type { HealthState } from "./use-health";

export function ModelBadge({ health }: { health: HealthState }) {
  const lang = useLang();
  if (health.status === "loading")
    return <span className="model-badge is-loading" aria-hidden="true" />;
  if (health.status === "down") {
    return (
      <span
        className="model-badge is-down"
        data-testid="model-badge"
        role="status"
        title={pick(
          lang,
          "The server does not answer; the page keeps checking and carries on when it is back.",
          "服务器没有响应；页面会继续检查，恢复后接着进行。",
        )}
      >
        <span className="dot" />
        <span className="badge-long">
          {pick(lang, "Server unreachable · checking again", "连不上服务器 · 正在重试")}
        </span>
        <span className="badge-short">{pick(lang, "Server unreachable", "连不上服务器")}</span>
      </span>
    );
  }
  const { health: h } = health;
  if (h.scripted) {
    return (
      <span
        className="model-badge is-scripted"
        data-testid="model-badge"
        title={pick(
          lang,
          "No API key is configured: replies come from the embedded scripted model, a deterministic script. It is not a language model.",
          "没有配置 API 密钥：回复来自内置的脚本模型，一段确定的脚本，不是大语言模型。",
        )}
      >
        <span className="dot" />
        <span className="badge-long">
          {pick(lang, "Scripted model — not an LLM", "脚本模型，不是大语言模型")}
        </span>
        <span className="badge-short">{pick(lang, "Scripted — not an LLM", "脚本模型")}</span>
      </span>
    );
  }
  return (
    <span
      className="model-badge"
      data-testid="model-badge"
      title={pick(lang, `Replies come from ${h.model}`, `回复来自 ${h.model}`)}
    >
      <span className="dot" /> {h.model}
    </span>
  );
}

export function Shell({
  view,
  health,
  actions,
  children,
}: {
  view: "shop" | "merchant";
  health: HealthState;
  actions?: ReactNode;
  children: ReactNode;
}) {
  const lang = useLang();
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {pick(lang, "Skip to the conversation", "跳到对话")}
      </a>
      <header className="topbar">
        <a className="brand" href={view === "shop" ? "/" : "/merchant"}>
          <span className="brand-mark" aria-hidden="true">
            <svg viewBox="0 0 32 32" width="28" height="28" aria-hidden="true">
              <rect width="32" height="32" rx="8" fill="currentColor" />
              <path d="M7 22l6-9 4 5 3-4 5 8z" fill="#fff" />
            </svg>
          </span>
          <span className="brand-text">
            <span className="brand-name">Trail &amp; Run</span>
            <span className="brand-sub">
              {view === "shop"
                ? pick(lang, "Shopping assistant", "购物助手")
                : pick(lang, "Merchant console", "商家后台")}
            </span>
          </span>
        </a>
        <ModelBadge health={health} />
        <div className="topbar-spacer" />
        <nav className="views" aria-label={pick(lang, "Views", "视图")}>
          <a href="/" aria-current={view === "shop" ? "page" : undefined}>
            <Icon name="cart" size={15} />
            <span>{pick(lang, "Shop", "商店")}</span>
          </a>
          <a href="/merchant" aria-current={view === "merchant" ? "page" : undefined}>
            <Icon name="store" size={15} />
            <span>{pick(lang, "Merchant", "商家")}</span>
          </a>
        </nav>
        <DeveloperToggle className="hide-phone" />
        {actions}
      </header>
      <main id="main" className="main">
        {children}
      </main>
    </div>
  );
}

/** While a session opens, or when it could not. */
export function LoadingView({ label }: { label: string }) {
  return (
    <div className="center-view" role="status" aria-live="polite">
      <span className="spinner spinner-large" aria-hidden="true" />
      <p>{label}</p>
    </div>
  );
}

export function ErrorView({ message, onRetry }: { message: string; onRetry: () => void }) {
  const lang = useLang();
  return (
    <div className="center-view">
      <div className="error-card" role="alert">
        <Icon name="alert" size={22} />
        <h2>{pick(lang, "Something got in the way", "出了点问题")}</h2>
        <p>{message}</p>
        <button type="button" className="btn btn-primary" onClick={onRetry}>
          <Icon name="refresh" size={15} /> {pick(lang, "Try again", "重试")}
        </button>
      </div>
    </div>
  );
}
