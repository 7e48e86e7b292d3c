/**
 * A side drawer over the page for the shopper's chats or orders: a dialog with its title and a
 * close button; Escape or a click outside closes it, and the focus goes back where it was. On a
 * phone it covers the page.
 */

import { type ReactNode, useEffect, useId, useRef } from "react";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { Icon } from "../ui/Icon";

export function AccountDrawer({
  title,
  testId,
  onClose,
  actions,
  children,
}: {
  title: string;
  testId: string;
  onClose: () => void;
  /** Buttons beside the title. */
  actions?: ReactNode;
  children: ReactNode;
}) {
  const lang = useLang();
  const titleId = useId();
  const close = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const before = document.activeElement;
    close.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      if (before instanceof HTMLElement) before.focus();
    };
  }, [onClose]);

  return (
    <div className="account-layer" lang={lang}>
      <button
        type="button"
        className="account-backdrop"
        aria-label={pick(lang, "Close", "关闭")}
        tabIndex={-1}
        onClick={onClose}
      />
      <section
        className="account-drawer"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={testId}
      >
        <header className="account-head">
          <h2 id={titleId} className="account-title">
            {title}
          </h2>
          {actions}
          <button
            ref={close}
            type="button"
            className="btn-icon"
            onClick={onClose}
            aria-label={pick(lang, "Close", "关闭")}
          >
            <Icon name="x" size={16} />
          </button>
        </header>
        <div className="account-body">{children}</div>
      </section>
    </div>
  );
}
