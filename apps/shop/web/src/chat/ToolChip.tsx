/**
 * A tool call's chip, from the moment its block starts (before its arguments stream). For the shopper it says
 * what happens in words ("Adding Aero Trail Runner to your cart", then "Added…"), in their
 * language; in the developer view it shows the tool's name, its arguments, where it is (writing
 * arguments, queued, running, done...) and, once the round's timings are in, how early it
 * started. The chip toggles its details.
 */

import type { CallView } from "overlap-runtime/client";
import { formatMs, langOf } from "../api/format";
import { pick } from "../i18n/lang";
import { Icon, Spinner } from "../ui/Icon";
import { callFailed, callSentence, tidyText } from "./call-words";
import { isActivePhase, PHASE_LABEL, summarizeArgs } from "./tool-meta";
import { useChatView } from "./view-context";

function PhaseIcon({ entry }: { entry: CallView }) {
  if (entry.phase === "done" && callFailed(entry)) return <Icon name="x" size={13} />;
  switch (entry.phase) {
    case "streaming-args":
    case "queued":
    case "running":
      return <Spinner size={12} />;
    case "done":
      return <Icon name="check" size={13} />;
    case "failed":
    case "invalid":
      return <Icon name="x" size={13} />;
    case "cancelled":
      return <Icon name="slash" size={13} />;
    case "deferred":
      return <Icon name="clock" size={13} />;
    default:
      return null;
  }
}

/** How long before the response's end the call started (positive), once the round has timings. */
export function earlyByMs(entry: CallView, streamEndMs: number | undefined): number | undefined {
  if (entry.startedAt === undefined || streamEndMs === undefined) return undefined;
  const early = streamEndMs - entry.startedAt;
  return early >= 1 ? early : undefined;
}

export function ToolChip({
  entry,
  streamEndMs,
  expanded,
  onToggle,
  detailsId,
}: {
  entry: CallView;
  streamEndMs: number | undefined;
  expanded: boolean;
  onToggle: () => void;
  detailsId: string;
}) {
  const view = useChatView();
  const failed = callFailed(entry);
  const common = {
    type: "button" as const,
    className: `tool-chip${view.developer ? " tool-chip-dev" : ""}`,
    "data-testid": "tool-chip",
    "data-phase": entry.phase,
    "data-tool": entry.name,
    "data-call-id": entry.callId,
    "data-active": isActivePhase(entry.phase),
    "data-failed": failed,
    "aria-expanded": expanded,
    "aria-controls": detailsId,
    onClick: onToggle,
  };
  if (!view.developer) {
    const sentence = callSentence(entry, view);
    return (
      <button
        {...common}
        aria-label={`${sentence}. ${pick(view.lang, "Show details", "查看详情")}`}
      >
        <span className="chip-icon">
          <PhaseIcon entry={entry} />
        </span>
        <span className="chip-text" lang={langOf(sentence) ?? "en"}>
          {sentence}
        </span>
      </button>
    );
  }
  const args = entry.input ?? entry.preview;
  const summary = summarizeArgs(args);
  const early = earlyByMs(entry, streamEndMs);
  const label = PHASE_LABEL[entry.phase];
  const reported = entry.result?.isError && entry.phase === "done" ? " (reported an error)" : "";
  return (
    <button
      {...common}
      aria-label={`Tool ${entry.name}: ${label}${reported}${early ? `, started ${formatMs(early)} before the reply finished` : ""}. Show details`}
    >
      <span className="chip-icon">
        <PhaseIcon entry={entry} />
      </span>
      <span className="chip-name">{entry.name}</span>
      {summary.length > 0 && (
        <span className="chip-args">
          {summary.map((part, i) =>
            part.id ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: summary parts have a fixed order
              <code key={i} className="id">
                {part.text}
              </code>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: summary parts have a fixed order
              <span key={i}>{part.text}</span>
            ),
          )}
        </span>
      )}
      <span className="chip-state">
        {label}
        {entry.phase === "streaming-args" && entry.previewBytes > 0
          ? ` · ${entry.previewBytes} B`
          : ""}
      </span>
      {early !== undefined && (
        <span
          className="chip-early"
          title={`Started ${formatMs(early)} before the model finished writing`}
        >
          <Icon name="bolt" size={11} />
          {formatMs(early)}
          <span className="chip-early-word"> early</span>
        </span>
      )}
    </button>
  );
}

/** The details of a call: in words for the shopper; arguments, result, timing for developers. */
export function CallDetails({
  entry,
  id,
  streamEndMs,
}: {
  entry: CallView;
  id: string;
  streamEndMs: number | undefined;
}) {
  const view = useChatView();
  if (!view.developer)
    return <CallDetailsInWords entry={entry} id={id} streamEndMs={streamEndMs} />;
  const args = entry.input ?? entry.preview;
  const fields =
    args && typeof args === "object" && !Array.isArray(args) ? Object.entries(args) : [];
  return (
    <div className="call-details" id={id}>
      <dl>
        <div>
          <dt>Call</dt>
          <dd>
            <code className="id">{entry.callId}</code>
          </dd>
        </div>
        {fields.length > 0 && (
          <div>
            <dt>Arguments</dt>
            <dd>
              <ul className="arg-list">
                {fields.map(([key, value]) => (
                  <li key={key}>
                    <span className="muted">{key}</span>{" "}
                    {typeof value === "string" && /^p-\d+$/.test(value) ? (
                      <code className="id">{value}</code>
                    ) : (
                      <span>{typeof value === "string" ? value : JSON.stringify(value)}</span>
                    )}
                  </li>
                ))}
              </ul>
            </dd>
          </div>
        )}
        {entry.inputError && (
          <div>
            <dt>Problem</dt>
            <dd>{entry.inputError}</dd>
          </div>
        )}
        {entry.startedAt !== undefined && (
          <div>
            <dt>Ran</dt>
            <dd>
              from {formatMs(entry.startedAt)}
              {entry.endedAt !== undefined
                ? `, for ${formatMs(entry.endedAt - entry.startedAt)}`
                : ", still running"}{" "}
              <span className="muted">(since the round started)</span>
            </dd>
          </div>
        )}
        {entry.result && (
          <div>
            <dt>{entry.result.isError ? "Result (error, as the model read it)" : "Result"}</dt>
            <dd className="result-text">{entry.result.text}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}

/** The shopper's details: what happened, what the shop answered, and when, in words. */
function CallDetailsInWords({
  entry,
  id,
  streamEndMs,
}: {
  entry: CallView;
  id: string;
  streamEndMs: number | undefined;
}) {
  const view = useChatView();
  const { lang } = view;
  const sentence = callSentence(entry, view);
  const answer = entry.result && !callFailed(entry) ? tidyText(entry.result.text, view.book) : "";
  const early = earlyByMs(entry, streamEndMs);
  const ran =
    entry.startedAt !== undefined && entry.endedAt !== undefined
      ? entry.endedAt - entry.startedAt
      : undefined;
  const timing =
    ran === undefined
      ? undefined
      : early !== undefined
        ? pick(
            lang,
            `It started ${formatMs(early)} before the assistant finished writing and took ${formatMs(ran)}.`,
            `它在助手写完前 ${formatMs(early)} 就开始了，用时 ${formatMs(ran)}。`,
          )
        : pick(lang, `It took ${formatMs(ran)}.`, `用时 ${formatMs(ran)}。`);
  return (
    <div className="call-details" id={id}>
      <dl>
        <div>
          <dt>{pick(lang, "What happened", "发生了什么")}</dt>
          <dd lang={langOf(sentence) ?? "en"}>{sentence}</dd>
        </div>
        {/* The shop's answer is written for the model, in English: an English page shows it. */}
        {answer !== "" && lang === "en" && (
          <div>
            <dt>{pick(lang, "The shop answered", "商店的答复")}</dt>
            <dd className="result-text" lang="en">
              {answer}
            </dd>
          </div>
        )}
        {timing && (
          <div>
            <dt>{pick(lang, "When", "时间")}</dt>
            <dd>{timing}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}
