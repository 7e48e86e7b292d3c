/**
 * The conversation: user messages and assistant turns. It follows new content while the reader is
 * at the bottom and leaves them alone when they scrolled up to read.
 */

import type { AgentState, AssistantTurn } from "overlap-runtime/client";
import { type ReactNode, useLayoutEffect, useRef } from "react";
import { formatMs, langOf } from "../api/format";
import type { CardActions } from "../cards/ProductCards";
import { turnChart } from "../timeline/timeline-model";
import { Icon } from "../ui/Icon";
import { TurnItems } from "./TurnItems";

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
}

export function MessageList({
  state,
  actions,
  onShowTimeline,
  onRetry,
  empty,
  agentName,
}: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const { turns } = state;

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  return (
    <div
      className="message-scroll"
      ref={scroller}
      onScroll={onScroll}
      data-testid="chat-log"
      role="log"
      aria-label="Conversation"
      aria-live="polite"
      aria-relevant="additions"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
    >
      <div className="message-column">
        {turns.length === 0 && empty}
        {turns.map((turn, i) => {
          if (turn.role === "user") {
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: the conversation is append-only
              <div key={i} className="msg-user" data-testid="user-message">
                <p lang={langOf(turn.text)}>{turn.text}</p>
              </div>
            );
          }
          const isLast = i === turns.length - 1;
          const previous = turns[i - 1];
          return (
            <AssistantTurnView
              // biome-ignore lint/suspicious/noArrayIndexKey: the conversation is append-only
              key={i}
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
              aria-label={`${agentName} is starting to reply`}
            />
          </div>
        )}
      </div>
    </div>
  );
}

function AssistantTurnView({
  turn,
  state,
  open,
  actions,
  agentName,
  onShowTimeline,
  onRetry,
}: {
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
  return (
    <article
      className="turn"
      data-testid="assistant-turn"
      data-running={open}
      data-done={turn.done !== undefined}
      aria-busy={open}
      aria-label={`${agentName} reply`}
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
              <Icon name="slash" size={14} /> Stopped. Whatever had already run is kept; you can go
              on.
            </p>
          ) : (
            <div className="turn-error" role="alert" data-testid="turn-error">
              <Icon name="alert" size={15} />
              <span>{turn.error.message}</span>
              {onRetry && !open && (
                <button type="button" className="btn btn-link" onClick={onRetry}>
                  Try again
                </button>
              )}
            </div>
          ))}
        {!open && (chart.rounds.length > 0 || roundCount > 0) && (
          <div className="turn-footer">
            <button
              type="button"
              className="turn-timing"
              onClick={onShowTimeline}
              aria-label="Show this reply on the timeline"
            >
              <Icon name="timeline" size={13} />
              {chart.rounds.length > 0 ? (
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
                <span>{open ? "timing…" : "no timings kept"}</span>
              )}
            </button>
          </div>
        )}
      </div>
    </article>
  );
}
