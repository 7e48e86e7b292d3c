/**
 * "Forget me on this device", confirmed: what it does, then Forget me or Cancel. Forgetting
 * revokes the shopper's token and every chat token of theirs on the server, and the page starts
 * over as a new shopper (`onForgotten`). A failure (the server cannot be reached) is shown here,
 * and nothing is forgotten: the page keeps the shopper.
 */

import { useState } from "react";
import { messageOf } from "../api/http";
import type { Credentials } from "../api/types";
import { pick } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { forgetShopper } from "../session/shopper-credentials";
import { Icon, Spinner } from "../ui/Icon";
import { AccountDrawer } from "./AccountDrawer";

export function ForgetDialog({
  credentials,
  onForgotten,
  onClose,
}: {
  credentials: Credentials;
  onForgotten: () => void;
  onClose: () => void;
}) {
  const lang = useLang();
  const [state, setState] = useState<{ busy: boolean; error: string | undefined }>({
    busy: false,
    error: undefined,
  });
  const forget = () => {
    setState({ busy: true, error: undefined });
    forgetShopper(new AbortController().signal, credentials).then(onForgotten, (err: unknown) =>
      setState({ busy: false, error: messageOf(err) }),
    );
  };
  return (
    <AccountDrawer
      title={pick(lang, "Forget me on this device", "在此设备上忘记我")}
      testId="forget-dialog"
      onClose={onClose}
    >
      <div className="forget-body">
        <p>
          {pick(
            lang,
            "This page will stop remembering you. Your shopper token and the tokens of all your chats are revoked on the server, so your chats, cart and orders can no longer be opened from this device (or from anywhere else those tokens were copied to).",
            "此页面将不再记住您。您的顾客凭证和所有对话的凭证都会在服务器上被撤销，所以您的对话、购物车和订单将无法再从此设备（或复制了这些凭证的其他地方）打开。",
          )}
        </p>
        <p className="muted">
          {pick(
            lang,
            "You then start over as a new shopper, with an empty cart. This cannot be undone.",
            "之后您将作为新顾客重新开始，购物车为空。此操作无法撤销。",
          )}
        </p>
        {state.error && (
          <p className="banner banner-error" role="alert">
            <Icon name="alert" size={15} />
            {state.error}
          </p>
        )}
        <div className="forget-actions">
          <button type="button" className="btn btn-ghost" onClick={onClose} disabled={state.busy}>
            {pick(lang, "Cancel", "取消")}
          </button>
          <button
            type="button"
            className="btn btn-danger"
            onClick={forget}
            disabled={state.busy}
            data-testid="forget-confirm"
          >
            {state.busy ? <Spinner /> : <Icon name="logout" size={15} />}
            {pick(lang, "Forget me", "忘记我")}
          </button>
        </div>
      </div>
    </AccountDrawer>
  );
}
