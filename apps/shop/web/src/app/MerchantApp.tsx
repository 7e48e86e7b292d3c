/**
 * The merchant's page (`/merchant`): asks for the merchant token (kept for this tab only, in
 * sessionStorage), then the merchant assistant with its stock, change, order and sales cards. A
 * change to several products waits for the merchant's approval here, as checkout waits for the
 * shopper's. The page speaks English or Chinese (`i18n/merchant-lang.ts`): its language button,
 * or the language of the merchant's latest message.
 */

import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { ApiError, messageOf, requestJson } from "../api/http";
import { readCredentials } from "../api/types";
import { useApprovalAnswers } from "../chat/approval-answers";
import { ChatPanel } from "../chat/ChatPanel";
import { useChat } from "../chat/use-chat";
import { type Lang, latestLang } from "../i18n/lang";
import { setMerchantLang, useMerchantLang } from "../i18n/merchant-lang";
import { merchantWords } from "../i18n/merchant-words";
import { LangContext } from "../i18n/shopper-lang";
import { MERCHANT } from "../session/endpoints";
import { merchantSession, merchantToken } from "../session/storage";
import { type SessionLoad, useSessionLoader } from "../session/use-session-loader";
import { TimelinePanel } from "../timeline/TimelinePanel";
import { Icon, Spinner } from "../ui/Icon";
import { ErrorView, LoadingView, Shell } from "./Shell";
import { type HealthState, useRetryWhenBack } from "./use-health";
import { Workspace } from "./Workspace";
import "./merchant-app.css";

function createMerchantSession(token: string, signal?: AbortSignal) {
  return requestJson(MERCHANT.base, readCredentials, { method: "POST", token, signal });
}

export function MerchantApp({ health }: { health: HealthState }) {
  const lang = useMerchantLang();
  const w = merchantWords(lang);
  useEffect(() => {
    document.title = w.documentTitle;
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  }, [w, lang]);
  const [token, setToken] = useState(() => merchantToken.load());
  /** Why the last sign-in ended: the token was refused (said in the page's language). */
  const [loginError, setLoginError] = useState<"rejected" | undefined>();

  const signOut = useCallback((error?: "rejected") => {
    merchantToken.clear();
    merchantSession.clear();
    setToken(undefined);
    setLoginError(error);
  }, []);

  return (
    <LangContext.Provider value={lang}>
      <Shell
        view="merchant"
        health={health}
        actions={
          <>
            <button
              type="button"
              className="btn btn-ghost lang-toggle"
              data-testid="merchant-lang"
              lang={lang === "zh" ? "en" : "zh"}
              onClick={() => setMerchantLang(lang === "zh" ? "en" : "zh")}
              aria-label={w.switchLanguageLabel}
            >
              <span className="hide-narrow">{w.switchLanguage}</span>
              <span className="lang-short" aria-hidden="true">
                {w.switchLanguageShort}
              </span>
            </button>
            {token ? (
              <button
                type="button"
                className="btn btn-ghost"
                onClick={() => signOut()}
                aria-label={w.signOutLabel}
              >
                <Icon name="logout" size={15} />
                <span className="hide-narrow">{w.signOut}</span>
              </button>
            ) : null}
          </>
        }
      >
        {token ? (
          <MerchantSession token={token} lang={lang} onRejected={() => signOut("rejected")} />
        ) : (
          <MerchantLogin
            lang={lang}
            error={loginError}
            onSignedIn={(t) => {
              merchantToken.save(t);
              setLoginError(undefined);
              setToken(t);
            }}
          />
        )}
      </Shell>
    </LangContext.Provider>
  );
}

function MerchantLogin({
  lang,
  error,
  onSignedIn,
}: {
  lang: Lang;
  error: "rejected" | undefined;
  onSignedIn: (token: string) => void;
}) {
  const w = merchantWords(lang);
  const [value, setValue] = useState("");
  const [pending, setPending] = useState(false);
  // "rejected" is said in the page's language; another failure is the error's own message.
  const [failure, setFailure] = useState<string | undefined>(error);
  const failureText = failure === "rejected" ? w.rejected : failure;
  const [help, env] = w.tokenHelp("MERCHANT_TOKEN");

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
          ? "rejected"
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
        <h1>{w.consoleTitle}</h1>
        <p className="muted">
          {help}
          <span className="nowrap">{env}</span>
        </p>
        <label className="field">
          <span>{w.tokenLabel}</span>
          <input
            type="password"
            autoComplete="current-password"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            aria-invalid={failureText !== undefined}
            aria-describedby={failureText ? "login-error" : undefined}
            // biome-ignore lint/a11y/noAutofocus: the only control of the page
            autoFocus
          />
        </label>
        {failureText && (
          <p className="field-error" id="login-error" role="alert">
            {failureText}
          </p>
        )}
        <button
          type="submit"
          className="btn btn-primary btn-block"
          disabled={pending || value.trim() === ""}
        >
          {pending ? <Spinner size={14} /> : null}
          {w.openConsole}
        </button>
      </form>
    </div>
  );
}

function MerchantSession({
  token,
  lang,
  onRejected,
}: {
  token: string;
  lang: Lang;
  onRejected: () => void;
}) {
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
    return <LoadingView label={merchantWords(lang).opening} />;
  if (load.status === "error") return <ErrorView message={load.error.message} onRetry={retry} />;
  return (
    <MerchantWorkspace key={load.credentials.id} load={load} lang={lang} onRestart={restart} />
  );
}

function MerchantWorkspace({
  load,
  lang,
  onRestart,
}: {
  load: Extract<SessionLoad, { status: "ready" }>;
  lang: Lang;
  onRestart: () => void;
}) {
  const w = merchantWords(lang);
  const chat = useChat(MERCHANT, load.credentials, load.initialState, load.follow);
  // A change to several products waits for the merchant's approval: its card answers here.
  useApprovalAnswers(MERCHANT, load.credentials);
  const [tab, setTab] = useState("chat");
  const [selected, setSelected] = useState<number | undefined>();
  const showTimeline = useCallback((index: number) => {
    setSelected(index);
    setTab("timeline");
  }, []);
  const userTurns = chat.state.turns.filter((t) => t.role === "user").length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a message is added
  useEffect(() => setSelected(undefined), [userTurns]);
  // The page follows the language of a message the merchant sends (not of the stored ones: a
  // reload keeps the language chosen).
  const seenTurns = useRef(userTurns);
  useEffect(() => {
    if (userTurns <= seenTurns.current) return;
    seenTurns.current = userTurns;
    setMerchantLang(latestLang(chat.state.turns));
  }, [userTurns, chat.state.turns]);

  return (
    <Workspace
      tab={tab}
      onTab={setTab}
      chat={
        <ChatPanel
          chat={chat}
          actions={{}}
          agentName={w.agentName}
          placeholder={w.placeholder}
          notice={load.notice}
          onShowTimeline={showTimeline}
          onRestart={onRestart}
          empty={
            <div className="welcome" lang={lang === "zh" ? "zh" : undefined}>
              <div className="welcome-mark" aria-hidden="true">
                <Icon name="store" size={22} />
              </div>
              <h1>{w.welcomeTitle}</h1>
              <p className="muted">{w.welcomeText}</p>
              <ul className="suggestions" aria-label={w.tryThese}>
                {w.suggestions.map((s) => (
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
          label: w.timeline,
          icon: "timeline",
          node: (
            <TimelinePanel turns={chat.state.turns} selected={selected} onSelect={setSelected} />
          ),
        },
      ]}
    />
  );
}
