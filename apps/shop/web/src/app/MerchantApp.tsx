/**
 * The merchant's page (`/merchant`): asks for the merchant token (kept for this tab only, in
 * sessionStorage), then the merchant assistant with its stock, order and sales cards.
 */

import { type FormEvent, useCallback, useEffect, useState } from "react";
import { ApiError, messageOf, requestJson } from "../api/http";
import { readCredentials } from "../api/types";
import { ChatPanel } from "../chat/ChatPanel";
import { useChat } from "../chat/use-chat";
import { MERCHANT } from "../session/endpoints";
import { merchantSession, merchantToken } from "../session/storage";
import { type SessionLoad, useSessionLoader } from "../session/use-session-loader";
import { TimelinePanel } from "../timeline/TimelinePanel";
import { Icon, Spinner } from "../ui/Icon";
import { ErrorView, LoadingView, Shell } from "./Shell";
import { type HealthState, useRetryWhenBack } from "./use-health";
import { Workspace } from "./Workspace";

const SUGGESTIONS = [
  "what is low on stock? restock it",
  "show the inventory of trail shoes",
  "sales summary",
  "list recent orders",
  "库存不足的商品有哪些？",
];

const REJECTED = "That merchant token was not accepted.";

function createMerchantSession(token: string, signal?: AbortSignal) {
  return requestJson(MERCHANT.base, readCredentials, { method: "POST", token, signal });
}

export function MerchantApp({ health }: { health: HealthState }) {
  useEffect(() => {
    document.title = "Merchant console · Trail & Run";
  }, []);
  const [token, setToken] = useState(() => merchantToken.load());
  const [loginError, setLoginError] = useState<string | undefined>();

  const signOut = useCallback((error?: string) => {
    merchantToken.clear();
    merchantSession.clear();
    setToken(undefined);
    setLoginError(error);
  }, []);

  return (
    <Shell
      view="merchant"
      health={health}
      actions={
        token ? (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => signOut()}
            aria-label="Sign out of the merchant console"
          >
            <Icon name="logout" size={15} />
            <span className="hide-narrow">Sign out</span>
          </button>
        ) : null
      }
    >
      {token ? (
        <MerchantSession token={token} onRejected={() => signOut(REJECTED)} />
      ) : (
        <MerchantLogin
          error={loginError}
          onSignedIn={(t) => {
            merchantToken.save(t);
            setLoginError(undefined);
            setToken(t);
          }}
        />
      )}
    </Shell>
  );
}

function MerchantLogin({
  error,
  onSignedIn,
}: {
  error: string | undefined;
  onSignedIn: (token: string) => void;
}) {
  const [value, setValue] = useState("");
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState(error);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const token = value.trim();
    if (!token) return;
    setPending(true);
    setFailure(undefined);
    try {
      merchantSession.save(await createMerchantSession(token));
      onSignedIn(token);
    } catch (err) {
      setFailure(
        err instanceof ApiError && (err.status === 401 || err.status === 403)
          ? REJECTED
          : messageOf(err),
      );
      setPending(false);
    }
  };

  return (
    <div className="center-view">
      <form className="login-card" onSubmit={submit}>
        <div className="login-mark" aria-hidden="true">
          <Icon name="store" size={22} />
        </div>
        <h1>Merchant console</h1>
        <p className="muted">
          Enter the merchant token (the server prints it at start, or set{" "}
          <span className="nowrap">MERCHANT_TOKEN</span>). It is kept for this tab only.
        </p>
        <label className="field">
          <span>Merchant token</span>
          <input
            type="password"
            autoComplete="current-password"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={failure !== undefined}
            aria-describedby={failure ? "login-error" : undefined}
            // biome-ignore lint/a11y/noAutofocus: the only control of the page
            autoFocus
          />
        </label>
        {failure && (
          <p className="field-error" id="login-error" role="alert">
            {failure}
          </p>
        )}
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={pending || value.trim() === ""}
        >
          {pending ? <Spinner size={14} /> : null}
          Open the console
        </button>
      </form>
    </div>
  );
}

function MerchantSession({ token, onRejected }: { token: string; onRejected: () => void }) {
  const create = useCallback(
    (signal: AbortSignal) => createMerchantSession(token, signal),
    [token],
  );
  const { load, retry, restart } = useSessionLoader({
    endpoints: MERCHANT,
    slot: merchantSession,
    create,
  });
  const rejected =
    load.status === "error" && (load.error.status === 401 || load.error.status === 403);
  useEffect(() => {
    if (rejected) onRejected();
  }, [rejected, onRejected]);

  useRetryWhenBack(load.status === "error" && load.error.status === 0, retry);

  if (load.status === "loading" || rejected)
    return <LoadingView label="Opening the merchant console…" />;
  if (load.status === "error") return <ErrorView message={load.error.message} onRetry={retry} />;
  return <MerchantWorkspace key={load.credentials.id} load={load} onRestart={restart} />;
}

function MerchantWorkspace({
  load,
  onRestart,
}: {
  load: Extract<SessionLoad, { status: "ready" }>;
  onRestart: () => void;
}) {
  const chat = useChat(MERCHANT, load.credentials, load.initialState, load.follow);
  const [tab, setTab] = useState("chat");
  const [selected, setSelected] = useState<number | undefined>();
  const showTimeline = useCallback((index: number) => {
    setSelected(index);
    setTab("timeline");
  }, []);
  const userTurns = chat.state.turns.filter((t) => t.role === "user").length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a message is added
  useEffect(() => setSelected(undefined), [userTurns]);

  return (
    <Workspace
      tab={tab}
      onTab={setTab}
      chat={
        <ChatPanel
          chat={chat}
          actions={{}}
          agentName="Merchant assistant"
          placeholder="Ask about stock, prices, orders or sales…"
          notice={load.notice}
          onShowTimeline={showTimeline}
          onRestart={onRestart}
          empty={
            <div className="welcome">
              <div className="welcome-mark" aria-hidden="true">
                <Icon name="store" size={22} />
              </div>
              <h1>Merchant assistant</h1>
              <p className="muted">Watch stock, restock, change prices, follow orders and sales.</p>
              <ul className="suggestions" aria-label="Try one of these">
                {SUGGESTIONS.map((s) => (
                  <li key={s}>
                    <button type="button" className="suggestion" onClick={() => chat.send(s)}>
                      {s}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          }
        />
      }
      panels={[
        {
          id: "timeline",
          label: "Timeline",
          icon: "timeline",
          node: (
            <TimelinePanel turns={chat.state.turns} selected={selected} onSelect={setSelected} />
          ),
        },
      ]}
    />
  );
}
