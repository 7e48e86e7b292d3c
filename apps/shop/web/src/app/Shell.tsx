/** The page frame: brand, the model badge (honest about the scripted model), views, actions. */

import type { ReactNode } from "react";
import { DeveloperToggle } from "../ui/DeveloperToggle";
import { Icon } from "../ui/Icon";
import type { HealthState } from "./use-health";

export function ModelBadge({ health }: { health: HealthState }) {
  if (health.status === "loading")
    return <span className="model-badge is-loading" aria-hidden="true" />;
  if (health.status === "down") {
    return (
      <span
        className="model-badge is-down"
        data-testid="model-badge"
        role="status"
        title="The server does not answer; the page keeps checking and carries on when it is back."
      >
        <span className="dot" />
        <span className="badge-long">Server unreachable · checking again</span>
        <span className="badge-short">Server unreachable</span>
      </span>
    );
  }
  const { health: h } = health;
  if (h.scripted) {
    return (
      <span
        className="model-badge is-scripted"
        data-testid="model-badge"
        title="No API key is configured: replies come from the embedded scripted model, a deterministic script. It is not a language model."
      >
        <span className="dot" />
        <span className="badge-long">Scripted model — not an LLM</span>
        <span className="badge-short">Scripted — not an LLM</span>
      </span>
    );
  }
  return (
    <span className="model-badge" data-testid="model-badge" title={`Replies come from ${h.model}`}>
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
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to the conversation
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
              {view === "shop" ? "Shopping assistant" : "Merchant console"}
            </span>
          </span>
        </a>
        <ModelBadge health={health} />
        <div className="topbar-spacer" />
        <nav className="views" aria-label="Views">
          <a href="/" aria-current={view === "shop" ? "page" : undefined}>
            <Icon name="cart" size={15} />
            <span>Shop</span>
          </a>
          <a href="/merchant" aria-current={view === "merchant" ? "page" : undefined}>
            <Icon name="store" size={15} />
            <span>Merchant</span>
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
  return (
    <div className="center-view">
      <div className="error-card" role="alert">
        <Icon name="alert" size={22} />
        <h2>Something got in the way</h2>
        <p>{message}</p>
        <button type="button" className="btn btn-primary" onClick={onRetry}>
          <Icon name="refresh" size={15} /> Try again
        </button>
      </div>
    </div>
  );
}
