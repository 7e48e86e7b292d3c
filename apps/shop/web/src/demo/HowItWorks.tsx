/**
 * "How it works": a drawer, labelled as a demonstration, that explains what overlap does and
 * lets a visitor make it visible: the scripted model's speed, a simulated latency for the shop's
 * services (labelled "simulated" wherever it shows), and "break the next reply". Settings are the
 * session's, kept by the server (`GET/PUT /api/sessions/:id/demo`); sliders save once they rest.
 * With a real model only the latency is offered. The header button opens it.
 */

import type { ConversationTurn } from "overlap-runtime/client";
import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { messageOf } from "../api/http";
import type { Credentials } from "../api/types";
import { type Lang, pick } from "../i18n/lang";
import { Icon } from "../ui/Icon";
import {
  DEMO_FAULTS,
  DEMO_SERVICES,
  type DemoFault,
  type DemoService,
  type DemoState,
  type DemoUpdate,
  demoRequest,
  setDemoOpen,
  setDemoState,
  useDemoShared,
} from "./demo-settings";
import { FAULT_HINTS, FAULT_NAMES, SERVICE_HINTS, SERVICE_NAMES, simulatedMs } from "./demo-words";

/** How long a slider rests before its value is saved. */
const SAVE_AFTER_MS = 350;
/** The slider ranges the drawer offers (the server accepts more). */
const LATENCY_MAX_MS = 2_000;
const LATENCY_STEP_MS = 50;
const SPEED_MAX = 300;
const SPEED_STEP = 5;
/** What the slider shows while the model keeps its own pace. */
const OWN_PACE_TOKENS_PER_SECOND = 60;

/** The header button that opens the drawer. */
export function HowItWorksButton({ lang }: { lang: Lang }) {
  const { open } = useDemoShared();
  return (
    <button
      type="button"
      className="btn btn-ghost demo-open"
      data-testid="demo-open"
      aria-expanded={open}
      aria-controls="how-it-works"
      aria-label={pick(lang, "How it works", "工作原理")}
      onClick={() => setDemoOpen(!open)}
      title={pick(lang, "How it works (demonstration controls)", "工作原理（演示控制）")}
    >
      <Icon name="info" size={15} />
      <span className="hide-narrow">{pick(lang, "How it works", "工作原理")}</span>
    </button>
  );
}

/**
 * The drawer (rendered only while open) and the session's demo state: loaded at once and again
 * after each finished reply, so the timeline knows which calls were delayed and the drawer that
 * an armed fault was used.
 */
export function HowItWorksDrawer({
  credentials,
  turns,
  lang,
}: {
  credentials: Credentials;
  turns: readonly ConversationTurn[];
  lang: Lang;
}) {
  const { open, state } = useDemoShared();
  const [error, setError] = useState<string | undefined>();
  const finished = turns.filter((t) => t.role === "assistant" && t.done !== undefined).length;

  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads when a reply finishes
  useEffect(() => {
    const abort = new AbortController();
    demoRequest(credentials, undefined, abort.signal).then(
      (next) => setDemoState(next),
      () => {}, // the drawer says so when it is opened and a change fails
    );
    return () => abort.abort();
  }, [credentials, finished]);
  useEffect(() => () => setDemoState(undefined), []);

  const save = useCallback(
    async (update: DemoUpdate) => {
      try {
        setDemoState(await demoRequest(credentials, update));
        setError(undefined);
      } catch (err) {
        setError(messageOf(err));
      }
    },
    [credentials],
  );

  if (!open) return null;
  return (
    <DrawerPanel lang={lang} onClose={() => setDemoOpen(false)}>
      {state ? (
        <DemoControls state={state} lang={lang} save={save} />
      ) : (
        <p className="muted">{pick(lang, "Loading the settings…", "正在读取设置…")}</p>
      )}
      {error && (
        <p className="demo-error" role="alert">
          <Icon name="alert" size={14} /> {error}
        </p>
      )}
    </DrawerPanel>
  );
}

function DrawerPanel({
  lang,
  onClose,
  children,
}: {
  lang: Lang;
  onClose: () => void;
  children: ReactNode;
}) {
  const titleId = useId();
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    closeRef.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      opener?.focus?.();
    };
  }, [onClose]);
  return (
    <div className="demo-layer">
      <button
        type="button"
        className="demo-backdrop"
        aria-label={pick(lang, "Close", "关闭")}
        tabIndex={-1}
        onClick={onClose}
      />
      <aside
        id="how-it-works"
        className="demo-drawer"
        data-testid="demo-drawer"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        lang={lang}
      >
        <header className="demo-head">
          <h2 id={titleId}>{pick(lang, "How it works", "工作原理")}</h2>
          <span className="demo-label">{pick(lang, "Demonstration", "演示")}</span>
          <button
            ref={closeRef}
            type="button"
            className="btn-icon"
            onClick={onClose}
            aria-label={pick(lang, "Close", "关闭")}
          >
            <Icon name="x" size={16} />
          </button>
        </header>
        <div className="demo-body">
          <p className="demo-intro">
            {pick(
              lang,
              "A model writes a reply token by token. Overlap starts each tool the moment its arguments are complete, while the model is still writing the rest, so the shop's services work during the reply instead of after it. The timeline shows what that saves, in words. If a reply breaks, overlap keeps the calls that finished, answers the others as not run, and the conversation goes on.",
              "模型逐个 token 地写回复。Overlap 在每个工具的参数一写完就启动它，而模型还在写剩下的内容，所以商店的服务在回复期间就开始工作，而不是等回复写完。时间线会用文字说明节省了多少时间。如果回复中断，overlap 会保留已完成调用的结果，把其余调用标记为未执行，对话可以继续。",
            )}
          </p>
          <p className="demo-note muted">
            {pick(
              lang,
              "These controls are for demonstration only: they slow down or break this chat on purpose. Nothing here changes the shop for anyone else.",
              "这些控制仅用于演示：它们会故意让这个对话变慢或出错，不会影响其他人。",
            )}
          </p>
          {children}
        </div>
      </aside>
    </div>
  );
}

/**
 * A value saved once it rests: the latest value shows at once, and is pending until its save
 * answered (a newer change keeps it pending).
 */
function useRestingValue<T>(
  saved: T,
  save: (value: T) => Promise<void>,
): [T, (value: T) => void, boolean] {
  const [draft, setDraft] = useState<{ value: T } | undefined>();
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const change = (value: T) => {
    const mine = { value };
    setDraft(mine);
    clearTimeout(timer.current);
    timer.current = setTimeout(async () => {
      await save(value);
      setDraft((current) => (current === mine ? undefined : current));
    }, SAVE_AFTER_MS);
  };
  return [draft ? draft.value : saved, change, draft !== undefined];
}

function DemoControls({
  state,
  lang,
  save,
}: {
  state: DemoState;
  lang: Lang;
  save: (update: DemoUpdate) => Promise<void>;
}) {
  const { settings, modelControls } = state;
  return (
    <>
      <EarlyStartPreset state={state} lang={lang} save={save} />
      <section className="demo-section" aria-labelledby="demo-speed">
        <h3 id="demo-speed">{pick(lang, "Model speed", "模型速度")}</h3>
        {modelControls ? (
          <SpeedControl value={settings.tokensPerSecond} lang={lang} save={save} />
        ) : (
          <p className="demo-unavailable" data-testid="demo-needs-scripted">
            {pick(
              lang,
              "The model's speed and breaking a reply need the built-in scripted model; this shop talks to a real model. The simulated latency below still works.",
              "模型速度和制造故障需要内置的脚本模型；这个商店连接的是真实模型。下面的模拟延迟仍然可用。",
            )}
          </p>
        )}
      </section>
      <section className="demo-section" aria-labelledby="demo-latency">
        <h3 id="demo-latency">
          {pick(lang, "Shop services", "商店服务")}{" "}
          <span className="demo-sim-tag">{pick(lang, "simulated latency", "模拟延迟")}</span>
        </h3>
        <p className="demo-hint muted">
          {pick(
            lang,
            "Each call to a service waits this long before it runs, as if the service were far away. The timeline marks these waits as simulated.",
            "每次调用服务前先等待这么久，就像服务在远处一样。时间线会把这些等待标记为模拟。",
          )}
        </p>
        {DEMO_SERVICES.map((service) => (
          <LatencyControl
            key={service}
            service={service}
            value={settings.serviceLatencyMs[service]}
            lang={lang}
            save={save}
          />
        ))}
      </section>
      {modelControls && <BreakControl state={state} lang={lang} save={save} />}
    </>
  );
}

/**
 * The demonstration's starting point: one slow service (the stock check, 300 ms) and a request
 * whose first call needs it while the model still writes the next two. Measured on this machine:
 * about 320 ms saved in that round (the first add's stock check runs during the reply; the cart's
 * calls still run one after another, in the order written).
 */
export const EARLY_START_LATENCY_MS = 300;

/** The request the preset is made for, in the page's language. */
export function earlyStartRequest(lang: Lang): string {
  return pick(
    lang,
    "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total",
    "把 10 码荧光绿的 Aero Trail Runner 和 M 码炭灰色的羊毛袜加入购物车，再告诉我总价",
  );
}

function EarlyStartPreset({
  state,
  lang,
  save,
}: {
  state: DemoState;
  lang: Lang;
  save: (update: DemoUpdate) => Promise<void>;
}) {
  const latency = state.settings.serviceLatencyMs;
  const active =
    latency.inventory === EARLY_START_LATENCY_MS &&
    latency.search === 0 &&
    latency.cart === 0 &&
    latency.orders === 0;
  return (
    <section className="demo-section demo-preset" aria-labelledby="demo-preset">
      <h3 id="demo-preset">{pick(lang, "See the early start", "看看提前启动")}</h3>
      <p className="demo-hint muted">
        {pick(
          lang,
          `Give the stock check a simulated ${EARLY_START_LATENCY_MS} ms, then send the message below: the first add checks stock while the model is still writing the other two calls, and the timeline says how much sooner the reply was ready.`,
          `给库存检查加上 ${EARLY_START_LATENCY_MS} 毫秒的模拟延迟，然后发送下面这条消息：第一次加购在模型还在写另外两个调用时就开始检查库存，时间线会说明回复因此提前了多少。`,
        )}
      </p>
      <blockquote className="demo-request" data-testid="demo-preset-request">
        {earlyStartRequest(lang)}
      </blockquote>
      <button
        type="button"
        className="btn btn-soft btn-small"
        data-testid="demo-preset"
        disabled={active}
        onClick={() =>
          save({
            serviceLatencyMs: { search: 0, inventory: EARLY_START_LATENCY_MS, cart: 0, orders: 0 },
          })
        }
      >
        {active
          ? pick(lang, "Stock check: 300 ms (set)", "库存检查：300 毫秒（已设置）")
          : pick(lang, "Set the stock check to 300 ms", "把库存检查设为 300 毫秒")}
      </button>
    </section>
  );
}

function SpeedControl({
  value,
  lang,
  save,
}: {
  value: number | null;
  lang: Lang;
  save: (update: DemoUpdate) => Promise<void>;
}) {
  const [shown, change, pending] = useRestingValue(value, (v) => save({ tokensPerSecond: v }));
  const id = useId();
  return (
    <div className="demo-row">
      <label htmlFor={id} className="demo-row-label">
        {pick(lang, "Tokens per second", "每秒 token 数")}
      </label>
      <input
        id={id}
        type="range"
        min={SPEED_STEP}
        max={SPEED_MAX}
        step={SPEED_STEP}
        value={shown ?? OWN_PACE_TOKENS_PER_SECOND}
        onChange={(e) => change(Number(e.target.value))}
        data-testid="demo-speed"
        data-pending={pending || undefined}
      />
      <output htmlFor={id} className="demo-value">
        {shown === null
          ? pick(lang, "the model's own pace", "模型自身速度")
          : pick(lang, `${shown} tokens/s`, `每秒 ${shown} 个 token`)}
      </output>
      {shown !== null && (
        <button type="button" className="btn btn-link demo-reset" onClick={() => change(null)}>
          {pick(lang, "Reset", "重置")}
        </button>
      )}
    </div>
  );
}

function LatencyControl({
  service,
  value,
  lang,
  save,
}: {
  service: DemoService;
  value: number;
  lang: Lang;
  save: (update: DemoUpdate) => Promise<void>;
}) {
  const [shown, change, pending] = useRestingValue(value, (v) =>
    save({ serviceLatencyMs: { [service]: v } }),
  );
  const id = useId();
  const name = SERVICE_NAMES[service][lang];
  return (
    <div className="demo-row">
      <label htmlFor={id} className="demo-row-label">
        {name}
        <span className="demo-row-hint muted">{SERVICE_HINTS[service][lang]}</span>
      </label>
      <input
        id={id}
        type="range"
        min={0}
        max={LATENCY_MAX_MS}
        step={LATENCY_STEP_MS}
        value={Math.min(shown, LATENCY_MAX_MS)}
        onChange={(e) => change(Number(e.target.value))}
        aria-label={pick(lang, `${name} latency (simulated)`, `${name}延迟（模拟）`)}
        aria-valuetext={shown === 0 ? pick(lang, "none", "无") : simulatedMs(lang, shown)}
        data-testid={`demo-latency-${service}`}
        data-pending={pending || undefined}
      />
      <output htmlFor={id} className={`demo-value${shown > 0 ? " is-on" : ""}`}>
        {shown === 0 ? pick(lang, "none", "无") : simulatedMs(lang, shown)}
      </output>
    </div>
  );
}

function BreakControl({
  state,
  lang,
  save,
}: {
  state: DemoState;
  lang: Lang;
  save: (update: DemoUpdate) => Promise<void>;
}) {
  const armed = state.settings.breakNextReply;
  const name = useId();
  const choices: (DemoFault | "none")[] = ["none", ...DEMO_FAULTS];
  return (
    <section className="demo-section" aria-labelledby="demo-break">
      <h3 id="demo-break">{pick(lang, "Break the next reply", "让下一条回复出错")}</h3>
      <p className="demo-hint muted">
        {pick(
          lang,
          "Once, for the next reply only. Ask for something that uses several tools, such as adding two products and the total, to see which calls keep their result.",
          "只对下一条回复生效一次。请让助手做需要多个工具的事（例如加两件商品并算总价），就能看到哪些调用保留了结果。",
        )}
      </p>
      <fieldset className="demo-faults">
        <legend className="visually-hidden">
          {pick(lang, "Break the next reply", "让下一条回复出错")}
        </legend>
        {choices.map((choice) => (
          <label
            key={choice}
            className={`demo-fault${(armed ?? "none") === choice ? " is-on" : ""}`}
          >
            <input
              type="radio"
              name={name}
              value={choice}
              checked={(armed ?? "none") === choice}
              onChange={() => void save({ breakNextReply: choice === "none" ? null : choice })}
              data-testid={`demo-fault-${choice}`}
            />
            <span className="demo-fault-text">
              <span className="demo-fault-name">{FAULT_NAMES[choice][lang]}</span>
              {choice !== "none" && (
                <span className="demo-fault-hint muted">{FAULT_HINTS[choice][lang]}</span>
              )}
            </span>
          </label>
        ))}
      </fieldset>
      <p className="demo-status" role="status" data-testid="demo-break-status">
        {armed
          ? pick(
              lang,
              `Armed: the next reply will break (${FAULT_NAMES[armed].en.toLowerCase()}).`,
              `已设置：下一条回复会出错（${FAULT_NAMES[armed].zh}）。`,
            )
          : state.lastBreak
            ? pick(
                lang,
                `The last broken reply: ${FAULT_NAMES[state.lastBreak.fault].en.toLowerCase()}. Nothing is armed now.`,
                `上一次故障：${FAULT_NAMES[state.lastBreak.fault].zh}。现在没有设置故障。`,
              )
            : pick(lang, "Nothing is armed.", "没有设置故障。")}
      </p>
    </section>
  );
}
