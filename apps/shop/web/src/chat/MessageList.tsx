/**
 * The conversation: user messages and assistant turns. It follows new content while the reader is
 * at the bottom and leaves them alone when they scrolled up to read; then a "Jump to latest"
 * button brings them back down. A message the shopper sends is always scrolled into view (and the
 * list follows its reply again), wherever they were reading.
 */

import type { AgentState, AssistantTurn } from "overlap-runtime/client";
import { type ReactNode, useLayoutEffect, useMemo, useRef, useState } from "react";
import { formatMs, langOf } from "../api/format";
import type { CardActions } from "../cards/ProductCards";
import { RepairNote } from "../demo/RepairNote";
import { errorWords } from "../i18n/error-words";
import { type Lang, pick, turnLang } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { NOTICEABLE_MS, turnChart } from "../timeline/timeline-model";
import { Icon } from "../ui/Icon";
import type { ProductBook } from "./product-book";
import { TurnItems } from "./TurnItems";
import { type ChatView, ChatViewContext } from "./view-context";

export interface MessageListProps {
  state: AgentState;
  actions: CardActions;
  /** Shows the timeline of the assistant turn at this index of `state.turns`. */
  onShowTimeline: (turnIndex: number) => void;
  /** Sends a message again (a failed turn's "Try again"). */
  onRetry: (text: string) => void;
  /** Shown when there is nothing yet. */
  empty: ReactNode;
  agentName: string;
  /** Product names the page knows. */
  book: ProductBook;
  developer: boolean;
  /** Indexes of user messages taken off the page. */
  removed: ReadonlySet<number>;
  /** Drawn right after the user message at `index` (a failed send's way out). */
  after?: { index: number; node: ReactNode } | undefined;
}

export function MessageList({
  state,
  actions,
  onShowTimeline,
  onRetry,
  empty,
  agentName,
  book,
  developer,
  removed,
  after,
}: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  // The reader scrolled up: "Jump to latest" is offered.
  const [away, setAway] = useState(false);
  const lang = useLang();
  const { turns } = state;
  const userCount = turns.filter((t) => t.role === "user").length;
  const seenUsers = useRef(userCount);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    // A message just sent: show it (it is the last thing in the list), and follow its reply.
    if (userCount > seenUsers.current && turns.at(-1)?.role === "user") {
      stick.current = true;
      setAway(false);
    }
    seenUsers.current = userCount;
    if (stick.current) el.scrollTop = el.scrollHeight;
  });

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    setAway(!stick.current);
  };

  const jumpToLatest = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = true;
    setAway(false);
    el.scrollTo({ top: el.scrollHeight, behavior: "smooth" });
  };

  return (
    <div className="message-pane">
      <div
        className="message-scroll"
        ref={scroller}
        onScroll={onScroll}
        data-testid="chat-log"
        role="log"
        aria-label={pick(lang, "Conversation", "对话")}
        aria-live="polite"
        aria-relevant="additions"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
      >
        <div className="message-column">
          {turns.length === 0 && empty}
          {turns.map((turn, i) => {
            if (turn.role === "user") {
              if (removed.has(i)) return null;
              const failed = after?.index === i;
              return (
                // biome-ignore lint/suspicious/noArrayIndexKey: the conversation is append-only
                <div key={i} className="msg-user-group">
                  <div
                    className={`msg-user${failed ? " is-unsent" : ""}`}
                    data-testid="user-message"
                    data-unsent={failed || undefined}
                  >
                    <p lang={langOf(turn.text)} data-source="shopper">
                      {turn.text}
                    </p>
                  </div>
                  {failed && after.node}
                </div>
              );
            }
            const isLast = i === turns.length - 1;
            const previous = turns[i - 1];
            return (
              <AssistantTurnView
                // biome-ignore lint/suspicious/noArrayIndexKey: the conversation is append-only
                key={i}
                view={{ lang: turnLang(turns, i), book, developer }}
                turn={turn}
                state={state}
                open={isLast && state.running && turn.done === undefined}
                actions={actions}
                agentName={agentName}
                onShowTimeline={() => onShowTimeline(i)}
                onRetry={previous?.role === "user" ? () => onRetry(previous.text) : undefined}
              />
            );
          })}
          {state.running && turns.at(-1)?.role === "user" && (
            <div className="turn turn-pending" data-testid="assistant-pending">
              <div className="turn-avatar" aria-hidden="true">
                <Icon name="spark" size={16} />
              </div>
              <span
                className="typing"
                role="status"
                aria-label={pick(
                  lang,
                  `${agentName} is starting to reply`,
                  `${agentName}正在开始回复`,
                )}
              />
            </div>
          )}
        </div>
      </div>
      {away && turns.length > 0 && (
        <button
          type="button"
          className="jump-latest"
          data-testid="jump-latest"
          onClick={jumpToLatest}
        >
          <Icon name="arrow-down" size={14} />
          {pick(lang, "Jump to latest", "跳到最新")}
        </button>
      )}
    </div>
  );
}

function AssistantTurnView({
  view,
  turn,
  state,
  open,
  actions,
  agentName,
  onShowTimeline,
  onRetry,
}: {
  view: ChatView;
  turn: AssistantTurn;
  state: AgentState;
  open: boolean;
  actions: CardActions;
  agentName: string;
  onShowTimeline: () => void;
  onRetry: (() => void) | undefined;
}) {
  const chart = turnChart(turn.rounds);
  const stopped = turn.error?.code === "aborted";
  const roundCount = Object.keys(turn.rounds).length;
  const { lang, book, developer } = view;
  const value = useMemo(() => ({ lang, book, developer }), [lang, book, developer]);
  return (
    <ChatViewContext.Provider value={value}>
      <article
        className="turn"
        data-testid="assistant-turn"
        data-running={open}
        data-done={turn.done !== undefined}
        aria-busy={open}
        aria-label={pick(lang, `${agentName} reply`, `${agentName}的回复`)}
      >
        <div className="turn-avatar" aria-hidden="true">
          <Icon name="spark" size={16} />
        </div>
        <div className="turn-body">
          <TurnItems
            items={turn.items}
            state={state}
            rounds={turn.rounds}
            open={open}
            actions={actions}
          />
          {open && turn.items.length === 0 && <span className="typing" aria-hidden="true" />}
          {turn.error &&
            (stopped ? (
              <p className="turn-note" data-testid="turn-stopped">
                <Icon name="slash" size={14} />{" "}
                {pick(
                  lang,
                  "Stopped. Whatever had already run is kept; you can go on.",
                  "已停止。已经完成的步骤都保留着，可以继续。",
                )}
              </p>
            ) : (
              <div className="turn-error" role="alert" data-testid="turn-error">
                <Icon name="alert" size={15} />
                <span>{errorWords(turn.error, lang)}</span>
                {onRetry && !open && (
                  <button type="button" className="btn btn-link" onClick={onRetry}>
                    {pick(lang, "Try again", "重试")}
                  </button>
                )}
              </div>
            ))}
          {/* A broken reply: which calls kept their result, which were answered as not run. */}
          {!open && <RepairNote turn={turn} state={state} />}
          {!open && (chart.rounds.length > 0 || roundCount > 0) && (
            <div className="turn-footer">
              <button
                type="button"
                className="turn-timing"
                onClick={onShowTimeline}
                aria-label={pick(lang, "Show this reply on the timeline", "在时间线上查看这条回复")}
              >
                <Icon name="timeline" size={13} />
                {chart.rounds.length === 0 ? (
                  <span>
                    {open
                      ? pick(lang, "timing…", "正在计时…")
                      : pick(lang, "no timings kept", "没有保留时间记录")}
                  </span>
                ) : developer ? (
                  <>
                    <span>
                      {chart.rounds.length} round{chart.rounds.length === 1 ? "" : "s"} ·{" "}
                      {formatMs(chart.totalMs)}
                    </span>
                    {chart.totalSavedMs >= 1 && (
                      <span className="saved-mini">
                        <Icon name="bolt" size={11} />
                        {formatMs(chart.totalSavedMs)} saved
                      </span>
                    )}
                  </>
                ) : (
                  <TimingInWords lang={lang} totalMs={chart.totalMs} savedMs={chart.totalSavedMs} />
                )}
              </button>
            </div>
          )}
        </div>
      </article>
    </ChatViewContext.Provider>
  );
}

/** "Answered in 1.6 s · 0.2 s saved" (by starting tools early), for the shopper. */
function TimingInWords({
  lang,
  totalMs,
  savedMs,
}: {
  lang: Lang;
  totalMs: number;
  savedMs: number;
}) {
  return (
    <>
      <span>
        {pick(lang, `Answered in ${formatMs(totalMs)}`, `用时 ${formatMs(totalMs, lang)}`)}
      </span>
      {savedMs >= NOTICEABLE_MS && (
        <span className="saved-mini">
          <Icon name="bolt" size={11} />
          {pick(lang, `${formatMs(savedMs)} saved`, `节省 ${formatMs(savedMs, lang)}`)}
        </span>
      )}
    </>
  );
}
