/**
 * The pieces of an assistant turn in the order they started: text as it streams, and runs of
 * tool calls (chips in a row, then the cards of those that draw one). A call's card is one
 * element keyed by its call id from its first preview to its final content: it changes what
 * it shows, it is never replaced.
 */

import type {
  AgentState,
  CallView,
  CitationLink,
  RoundInfo,
  ServerToolItem,
  TurnItem,
} from "overlap-runtime/client";
import { callCard } from "overlap-runtime/client";
import { Fragment, useId, useState } from "react";
import { langOf } from "../api/format";
import { ApprovalCard } from "../cards/ApprovalCard";
import type { CardActions } from "../cards/ProductCards";
import { CARD_TYPES, type CardStage, PreviewBody, UiBody } from "../cards/UiCard";
import { pick } from "../i18n/lang";
import { Icon } from "../ui/Icon";
import { Citations } from "./Citations";
import { callProblem, callSentence } from "./call-words";
import { ProviderToolChip } from "./ProviderToolChip";
import { CallDetails, ToolChip } from "./ToolChip";
import { DELEGATE_TOOLS, DISPLAY_TOOLS, isActivePhase } from "./tool-meta";
import { useChatView } from "./view-context";

type Group =
  | { kind: "text"; key: string; text: string; citations: readonly CitationLink[] }
  | { kind: "thinking"; key: string; text: string }
  | { kind: "calls"; key: string; callIds: string[] }
  | { kind: "server-tool"; key: string; item: ServerToolItem };

function groupItems(items: readonly TurnItem[]): Group[] {
  const groups: Group[] = [];
  for (const item of items) {
    if (item.kind === "call") {
      const last = groups.at(-1);
      if (last?.kind === "calls") last.callIds.push(item.callId);
      else groups.push({ kind: "calls", key: `c-${item.callId}`, callIds: [item.callId] });
    } else if (item.kind === "text") {
      if (item.text.trim() === "") continue;
      groups.push({
        kind: "text",
        key: `t-${item.round}-${item.index}`,
        text: item.text,
        citations: item.citations ?? [],
      });
    } else if (item.kind === "thinking") {
      groups.push({ kind: "thinking", key: `k-${item.round}-${item.index}`, text: item.thinking });
    } else {
      groups.push({ kind: "server-tool", key: `s-${item.callId}`, item });
    }
  }
  return groups;
}

/** True when the call draws a card. */
export function hasCard(entry: CallView): boolean {
  return (
    DISPLAY_TOOLS.has(entry.name) ||
    DELEGATE_TOOLS.has(entry.name) ||
    entry.ui.some((u) => CARD_TYPES.has(u.type))
  );
}

export interface TurnItemsProps {
  items: readonly TurnItem[];
  /** The state the items belong to (its calls, its delegates). */
  state: AgentState;
  /** The turn's rounds (for the "started early" marks). */
  rounds: Readonly<Record<number, RoundInfo>>;
  /** The turn is still being written. */
  open: boolean;
  actions: CardActions;
}

export function TurnItems({ items, state, rounds, open, actions }: TurnItemsProps) {
  const view = useChatView();
  const groups = groupItems(items);
  const lastText = groups.findLastIndex((g) => g.kind === "text");
  return (
    <>
      {groups.map((group, i) => {
        switch (group.kind) {
          case "text":
            return (
              <Fragment key={group.key}>
                <p
                  // The model's own words (not the page's), in whatever language it wrote them.
                  data-source="model"
                  lang={langOf(group.text)}
                  className={`turn-text${open && i === lastText && i === groups.length - 1 ? " streaming" : ""}`}
                >
                  {group.text}
                </p>
                <Citations links={group.citations} />
              </Fragment>
            );
          case "thinking":
            return (
              <details key={group.key} className="thinking">
                <summary>{pick(view.lang, "Thinking", "思考")}</summary>
                <p>{group.text}</p>
              </details>
            );
          case "server-tool":
            return <ProviderToolChip key={group.key} item={group.item} />;
          default:
            return (
              <CallRun
                key={group.key}
                callIds={group.callIds}
                state={state}
                rounds={rounds}
                actions={actions}
              />
            );
        }
      })}
    </>
  );
}

function CallRun({
  callIds,
  state,
  rounds,
  actions,
}: {
  callIds: readonly string[];
  state: AgentState;
  rounds: Readonly<Record<number, RoundInfo>>;
  actions: CardActions;
}) {
  const [expanded, setExpanded] = useState<string | undefined>();
  const baseId = useId();
  const view = useChatView();
  const entries = callIds
    .map((id) => state.calls[id])
    .filter((e): e is CallView => e !== undefined);
  const open = entries.find((e) => e.callId === expanded);
  return (
    <div className="call-run">
      <div className="chip-row">
        {entries.map((entry) => (
          <ToolChip
            key={entry.callId}
            entry={entry}
            streamEndMs={rounds[entry.round]?.timings?.streamEndMs}
            expanded={expanded === entry.callId}
            detailsId={`${baseId}-details`}
            onToggle={() => setExpanded((x) => (x === entry.callId ? undefined : entry.callId))}
          />
        ))}
      </div>
      {open && (
        <CallDetails
          entry={open}
          id={`${baseId}-details`}
          streamEndMs={rounds[open.round]?.timings?.streamEndMs}
        />
      )}
      {entries.map((entry) => {
        const problem = callProblem(entry, view);
        return problem ? (
          <p
            key={`problem-${entry.callId}`}
            className="call-problem"
            data-testid="call-problem"
            data-call-id={entry.callId}
            lang={langOf(problem) ?? "en"}
          >
            <Icon name="alert" size={14} />
            <span>{problem}</span>
          </p>
        ) : null;
      })}
      {entries.filter(hasCard).map((entry) => (
        <CallCard key={entry.callId} entry={entry} state={state} actions={actions} />
      ))}
      {entries
        .filter((entry) => entry.approval !== undefined)
        .map((entry) => (
          <ApprovalCard key={`approval-${entry.callId}`} entry={entry} />
        ))}
    </div>
  );
}

function stageOf(entry: CallView): CardStage {
  if (entry.ui.length > 0) return "final";
  if (entry.result !== undefined || !(isActivePhase(entry.phase) || entry.phase === "deferred")) {
    return "settled";
  }
  return entry.phase === "streaming-args" ? "writing" : "loading";
}

/** A call's card: the same element from the first preview to the final card. */
function CallCard({
  entry,
  state,
  actions,
}: {
  entry: CallView;
  state: AgentState;
  actions: CardActions;
}) {
  const card = callCard(entry);
  const stage = stageOf(entry);
  const delegate = DELEGATE_TOOLS.has(entry.name);
  const formal = card.kind === "final" ? card.ui.filter((u) => CARD_TYPES.has(u.type)) : [];
  const dataState = stage === "final" ? "final" : stage === "settled" ? "settled" : "preview";
  const view = useChatView();
  return (
    <section
      className={`call-card ${delegate ? "call-card-delegate" : ""}`}
      data-testid="call-card"
      data-call-id={entry.callId}
      data-tool={entry.name}
      data-state={dataState}
      aria-busy={dataState === "preview"}
      aria-label={view.developer ? `${entry.name} card` : callSentence(entry, view)}
    >
      {delegate ? (
        <DelegateBody entry={entry} inner={state.delegated[entry.callId]} actions={actions} />
      ) : formal.length > 0 ? (
        formal.map((ui, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a call's UI events only ever grow
          <UiBody key={i} ui={ui} entry={entry} actions={actions} />
        ))
      ) : (
        <PreviewBody entry={entry} stage={stage} actions={actions} />
      )}
    </section>
  );
}

/** A delegate call (`ask_merchant`): the other agent's reply, live, inside the card. */
function DelegateBody({
  entry,
  inner,
  actions,
}: {
  entry: CallView;
  inner: AgentState | undefined;
  actions: CardActions;
}) {
  const question =
    entry.input?.question ?? (entry.preview as { question?: unknown } | undefined)?.question;
  const turns = inner?.turns ?? [];
  const active = isActivePhase(entry.phase);
  const { lang } = useChatView();
  return (
    <>
      <header className="card-head">
        <span className="card-icon">
          <Icon name="store" size={15} />
        </span>
        <h3 className="card-title">{pick(lang, "The merchant's assistant", "商家助手")}</h3>
        <span className={`card-stage ${active ? "stage-writing" : "stage-final"}`}>
          {active ? pick(lang, "answering…", "回答中…") : pick(lang, "answered", "已回答")}
        </span>
      </header>
      {typeof question === "string" && (
        <p className="delegate-question" data-source="model" lang={langOf(question)}>
          “{question}”
        </p>
      )}
      <div className="delegate-body">
        {turns.length === 0 && active && (
          <span
            className="typing"
            role="status"
            aria-label={pick(lang, "Waiting for the merchant's assistant", "等待商家助手")}
          />
        )}
        {turns.map((turn, i) =>
          turn.role === "assistant" && inner ? (
            <TurnItems
              // biome-ignore lint/suspicious/noArrayIndexKey: turns are appended in order
              key={i}
              items={turn.items}
              state={inner}
              rounds={turn.rounds}
              open={turn.done === undefined && active}
              actions={actions}
            />
          ) : null,
        )}
      </div>
    </>
  );
}
