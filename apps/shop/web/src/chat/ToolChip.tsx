/**
 * A tool call's chip: its name and where it is (writing arguments, queued, running, done,
 * failed...), from the moment its block starts (S1 moment 1). When the round's timings are in, a
 * call that started before the model finished writing says so. The chip toggles its details.
 */

import type { CallEntry } from "overlap-runtime/client";
import { formatMs } from "../api/format";
import { Icon, Spinner } from "../ui/Icon";
import { isActivePhase, PHASE_LABEL, summarizeArgs } from "./tool-meta";

function PhaseIcon({ entry }: { entry: CallEntry }) {
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
export function earlyByMs(entry: CallEntry, streamEndMs: number | undefined): number | undefined {
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
  entry: CallEntry;
  streamEndMs: number | undefined;
  expanded: boolean;
  onToggle: () => void;
  detailsId: string;
}) {
  const args = entry.input ?? entry.preview;
  const summary = summarizeArgs(args);
  const early = earlyByMs(entry, streamEndMs);
  const label = PHASE_LABEL[entry.phase];
  const failed = entry.result?.isError && entry.phase === "done" ? " (reported an error)" : "";
  return (
    <button
      type="button"
      className="tool-chip"
      data-testid="tool-chip"
      data-phase={entry.phase}
      data-tool={entry.name}
      data-call-id={entry.callId}
      data-active={isActivePhase(entry.phase)}
      aria-expanded={expanded}
      aria-controls={detailsId}
      aria-label={`Tool ${entry.name}: ${label}${failed}${early ? `, started ${formatMs(early)} before the reply finished` : ""}. Show details`}
      onClick={onToggle}
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

/** The details of a call: arguments, result, timing. */
export function CallDetails({ entry, id }: { entry: CallEntry; id: string }) {
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
            <dt>{entry.result.isError ? "Result (error)" : "Result"}</dt>
            <dd className="result-text">{entry.result.text}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}
