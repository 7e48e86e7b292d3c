/**
 * The timeline: for the selected reply, one compact Gantt chart per round on a shared time
 * axis. Model blocks are drawn in the model's colours (text, tool arguments), tools in the tools'
 * (waiting, running); a vertical line marks where the model's response ended, so every tool bar
 * left of it ran while the model was still writing. Under each chart, the round as it went and as
 * it would have gone had the tools waited for the end of the response, with the time saved, and
 * what those figures mean in a sentence ("The tools finished 0.9 s before the reply ended;
 * waiting for the reply would have taken 0.9 s longer"). Rows are named in words ("Add to
 * cart"), or by the tool's name in the developer view. A call the demo drawer's simulated service
 * latency delayed says so on its row ("400 ms simulated", the wait hatched inside its run bar) and
 * in the reply's summary: the time saved then includes simulated waits.
 */

import type { ConversationTurn } from "overlap-runtime/client";
import { formatMs, formatTick } from "../api/format";
import { toolLabel } from "../chat/tool-meta";
import { type SimulatedCall, useDemoShared } from "../demo/demo-settings";
import { SERVICE_NAMES, simulatedMs } from "../demo/demo-words";
import { type Lang, pick, turnLang } from "../i18n/lang";
import { useLang } from "../i18n/shopper-lang";
import { DeveloperToggle } from "../ui/DeveloperToggle";
import { useDeveloperView } from "../ui/developer-view";
import { Icon } from "../ui/Icon";
import {
  type Bar,
  explainRound,
  explainTurn,
  NOTICEABLE_MS,
  type RoundChart,
  type TurnChart,
  turnChart,
} from "./timeline-model";

const BAR_NAMES: Record<Bar["kind"], { en: string; zh: string }> = {
  text: { en: "text", zh: "文字" },
  thinking: { en: "thinking", zh: "思考" },
  args: { en: "arguments", zh: "参数" },
  server: { en: "provider tool", zh: "服务商工具" },
  queue: { en: "waiting for a slot", zh: "等待空位" },
  run: { en: "ran", zh: "运行" },
};

/** A row's name in words: the model's text and thinking, or the tool's label. */
function rowName(label: string, tool: boolean, lang: Lang): string {
  if (tool) return toolLabel(label, lang);
  if (label === "Text") return pick(lang, "Text", "文字");
  if (label === "Thinking") return pick(lang, "Thinking", "思考");
  return label;
}

function pct(ms: number, scale: number): string {
  return `${Math.max(0, Math.min(100, (ms / scale) * 100))}%`;
}

function describeRow(label: string, bars: readonly Bar[], lang: Lang): string {
  return `${label}: ${bars
    .map((b) =>
      pick(
        lang,
        `${BAR_NAMES[b.kind].en} ${formatMs(b.startMs)} to ${formatMs(b.endMs)}`,
        `${BAR_NAMES[b.kind].zh} ${formatMs(b.startMs, lang)} 至 ${formatMs(b.endMs, lang)}`,
      ),
    )
    .join(pick(lang, ", ", "，"))}`;
}

/** What a row's right-hand figure says: a tool's run, else the block's writing time. */
function rowDuration(bars: readonly Bar[]): number {
  const run = bars.find((b) => b.kind === "run");
  const bar = run ?? bars[0];
  return bar ? bar.endMs - bar.startMs : 0;
}

function BarView({
  bar,
  scale,
  label,
  simulated,
  lang,
}: {
  bar: Bar;
  scale: number;
  label: string;
  lang: Lang;
  /** The simulated service wait at the start of a run bar. */
  simulated?: SimulatedCall | undefined;
}) {
  const runMs = bar.endMs - bar.startMs;
  const wait = bar.kind === "run" && simulated && runMs > 0 ? Math.min(simulated.ms, runMs) : 0;
  return (
    <span
      className={`tl-bar bar-${bar.kind}${bar.status === "failed" ? " is-failed" : ""}`}
      data-kind={bar.kind === "run" || bar.kind === "queue" ? "tool" : "block"}
      data-bar={bar.kind}
      data-start-ms={bar.startMs.toFixed(1)}
      data-end-ms={bar.endMs.toFixed(1)}
      style={{ left: pct(bar.startMs, scale), width: pct(bar.endMs - bar.startMs, scale) }}
      title={`${label} · ${BAR_NAMES[bar.kind][lang]} ${formatMs(bar.startMs, lang)} → ${formatMs(bar.endMs, lang)} (${formatMs(bar.endMs - bar.startMs, lang)})${wait > 0 ? pick(lang, `, of which ${formatMs(wait)} simulated service latency`, `，其中 ${formatMs(wait, lang)} 是模拟的服务延迟`) : ""}`}
    >
      {wait > 0 && (
        <span
          className="tl-bar-sim"
          data-testid="simulated-wait"
          style={{ width: `${(wait / runMs) * 100}%` }}
        />
      )}
    </span>
  );
}

function RoundView({
  chart,
  scale,
  ticks,
  lang,
  developer,
  simulated,
}: {
  chart: RoundChart;
  scale: number;
  ticks: number[];
  lang: Lang;
  developer: boolean;
  /** Calls delayed by a simulated latency, by call id. */
  simulated: Readonly<Record<string, SimulatedCall>>;
}) {
  const saved = chart.savedMs ?? 0;
  const withoutOverlap = chart.endWithoutOverlapMs;
  const stream = chart.streamEndMs;
  const explained = explainRound(chart, lang);
  const rows = chart.rows.map((row) => ({
    ...row,
    label: developer ? row.label : rowName(row.label, row.tool, lang),
  }));
  return (
    <section className="tl-round" data-testid="timeline-round" data-round={chart.round}>
      <header className="tl-round-head">
        <h3>{pick(lang, `Round ${chart.round}`, `第 ${chart.round} 轮`)}</h3>
        {developer && chart.stopReason && (
          <span className="pill pill-muted">{chart.stopReason}</span>
        )}
        <span className="tl-duration">{formatMs(chart.endMs, lang)}</span>
        {withoutOverlap !== undefined &&
          (saved >= NOTICEABLE_MS ? (
            <span className="saved-pill" data-testid="saved" data-saved-ms={saved.toFixed(1)}>
              <Icon name="bolt" size={11} />
              {pick(lang, `${formatMs(saved)} saved`, `节省 ${formatMs(saved, lang)}`)}
            </span>
          ) : (
            <span
              className="saved-pill is-none"
              data-testid="saved"
              data-saved-ms={Math.max(0, saved).toFixed(1)}
            >
              {pick(lang, "no time saved", "没有节省时间")}
            </span>
          ))}
      </header>
      <div className="tl-chart">
        <div className="tl-labels">
          <div className="tl-axis-spacer" />
          {rows.map((row) => (
            <RowLabel
              key={row.key}
              label={row.label}
              tool={row.tool}
              simulated={row.callId ? simulated[row.callId] : undefined}
              lang={lang}
            />
          ))}
        </div>
        <div className="tl-tracks">
          <div className="tl-axis" aria-hidden="true">
            {ticks.map((t) => (
              <span key={t} className="tl-tick" style={{ left: pct(t, scale) }}>
                {formatTick(t, lang)}
              </span>
            ))}
          </div>
          {ticks.map((t) => (
            <span
              key={t}
              className="tl-gridline"
              style={{ left: pct(t, scale) }}
              aria-hidden="true"
            />
          ))}
          {rows.map((row) => (
            <div
              key={row.key}
              className={`tl-track${row.callId && simulated[row.callId] ? " has-sim" : ""}`}
              role="img"
              aria-label={describeRow(row.label, row.bars, lang)}
              data-label={row.label}
            >
              {row.bars.map((bar, i) => (
                <BarView
                  // biome-ignore lint/suspicious/noArrayIndexKey: a row's bars have a fixed order
                  key={i}
                  bar={bar}
                  scale={scale}
                  label={row.label}
                  simulated={row.callId ? simulated[row.callId] : undefined}
                  lang={lang}
                />
              ))}
            </div>
          ))}
          {stream !== undefined && (
            <span
              className="tl-marker"
              data-testid="stream-end"
              data-ms={stream.toFixed(1)}
              style={{ left: pct(stream, scale) }}
              title={pick(
                lang,
                `The model's reply ended at ${formatMs(stream)}`,
                `模型的回复在 ${formatMs(stream, lang)} 结束`,
              )}
            >
              <span className="tl-marker-label">{pick(lang, "reply end", "回复结束")}</span>
            </span>
          )}
        </div>
        <div className="tl-values" aria-hidden="true">
          <div className="tl-axis-spacer" />
          {rows.map((row) => (
            <div
              key={row.key}
              className={row.callId && simulated[row.callId] ? "has-sim" : undefined}
            >
              {formatMs(rowDuration(row.bars), lang)}
            </div>
          ))}
        </div>
      </div>
      {withoutOverlap !== undefined && stream !== undefined && (
        <div
          className="tl-compare"
          role="img"
          aria-label={pick(
            lang,
            `This round took ${formatMs(chart.endMs)}; had the tools waited for the end of the response it would have taken ${formatMs(withoutOverlap)}`,
            `这一轮用时 ${formatMs(chart.endMs, lang)}；如果工具等回复结束再开始，会用 ${formatMs(withoutOverlap, lang)}`,
          )}
        >
          <div className="tl-labels">
            <div
              className="tl-label"
              title={pick(lang, "This round as it ran", "这一轮实际的运行")}
            >
              {pick(lang, "As it ran", "实际")}
            </div>
            <div
              className="tl-label"
              title={pick(
                lang,
                "Had every tool waited for the end of the reply",
                "如果每个工具都等回复结束",
              )}
            >
              {pick(lang, "If tools waited", "若等待回复")}
            </div>
          </div>
          <div className="tl-tracks">
            <div className="tl-track tl-track-thin">
              <span
                className="tl-bar bar-total-model"
                style={{ left: 0, width: pct(stream, scale) }}
              />
              <span
                className="tl-bar bar-total-tools"
                style={{ left: pct(stream, scale), width: pct(chart.endMs - stream, scale) }}
              />
            </div>
            <div className="tl-track tl-track-thin">
              <span
                className="tl-bar bar-total-model is-ghost"
                style={{ left: 0, width: pct(stream, scale) }}
              />
              <span
                className="tl-bar bar-total-tools is-ghost"
                style={{ left: pct(stream, scale), width: pct(withoutOverlap - stream, scale) }}
              />
            </div>
          </div>
          <div className="tl-values">
            <div className="strong">{formatMs(chart.endMs, lang)}</div>
            <div>{formatMs(withoutOverlap, lang)}</div>
          </div>
        </div>
      )}
      {explained && (
        <p className="tl-explain" data-testid="round-explained">
          {explained}
        </p>
      )}
    </section>
  );
}

/** A row's name; a call delayed by a simulated latency says so: "Search · 400 ms simulated". */
function RowLabel({
  label,
  tool,
  simulated,
  lang,
}: {
  label: string;
  tool: boolean;
  simulated: SimulatedCall | undefined;
  lang: Lang;
}) {
  const tag = simulated ? simulatedMs(lang, simulated.ms) : undefined;
  return (
    <div
      className={`tl-label${tool ? " is-tool" : ""}${tag ? " has-sim" : ""}`}
      title={tag ? `${label} · ${tag}` : label}
    >
      <span className="tl-label-name">{label}</span>
      {tag && (
        <span className="tl-sim-chip" data-testid="simulated-chip">
          {tag}
        </span>
      )}
    </div>
  );
}

/** The reply's calls delayed by a simulated latency, in a sentence (`undefined` for none). */
function simulatedSentence(
  chart: TurnChart,
  simulated: Readonly<Record<string, SimulatedCall>>,
  lang: Lang,
): string | undefined {
  const delayed = chart.rounds.flatMap((r) =>
    r.rows.flatMap((row) => (row.callId && simulated[row.callId] ? [simulated[row.callId]!] : [])),
  );
  if (delayed.length === 0) return undefined;
  const services = [...new Set(delayed.flatMap((call) => call.services))];
  const names = services.map((service) => SERVICE_NAMES[service][lang]);
  return pick(
    lang,
    `Demonstration: ${delayed.length} call${delayed.length === 1 ? "" : "s"} waited a simulated latency (${names.join(", ")}); the times above include those waits.`,
    `演示：${delayed.length} 个调用等待了模拟的服务延迟（${names.join("、")}）；上面的时间包含这些等待。`,
  );
}

function Legend({ lang }: { lang: Lang }) {
  return (
    <ul className="tl-legend" aria-label={pick(lang, "Legend", "图例")}>
      <li>
        <span className="key bar-text" /> {pick(lang, "Text", "文字")}
      </li>
      <li>
        <span className="key bar-args" /> {pick(lang, "Arguments", "参数")}
      </li>
      <li>
        <span className="key bar-queue" /> {pick(lang, "Waiting", "等待")}
      </li>
      <li>
        <span className="key bar-run" /> {pick(lang, "Tool running", "工具运行")}
      </li>
      <li>
        <span className="key key-marker" /> {pick(lang, "Reply end", "回复结束")}
      </li>
    </ul>
  );
}

function TurnSummary({
  chart,
  lang,
  developer,
  simulated,
}: {
  chart: TurnChart;
  lang: Lang;
  developer: boolean;
  simulated: Readonly<Record<string, SimulatedCall>>;
}) {
  const sentence = explainTurn(chart, lang);
  const hasTools = chart.rounds.some((r) => r.endWithoutOverlapMs !== undefined);
  const demo = simulatedSentence(chart, simulated, lang);
  const savedSome = chart.totalSavedMs >= NOTICEABLE_MS;
  return (
    <div className="tl-summary-box" data-testid="timeline-summary">
      <p className="tl-summary-plain">
        {hasTools && chart.totalSavedMs >= NOTICEABLE_MS && <Icon name="bolt" size={14} />}
        {sentence}
      </p>
      {demo && (
        <p className="tl-summary-sim" data-testid="timeline-simulated">
          {demo}
        </p>
      )}
      {developer && hasTools && (
        <dl className="tl-summary">
          {/* A head start beside "0 ms saved" reads as a contradiction: shown only with a saving. */}
          {savedSome && (
            <div className="tl-stat">
              <dt>{pick(lang, "Head start", "提前量")}</dt>
              <dd>{formatMs(chart.totalHeadStartMs, lang)}</dd>
              <dd className="tl-stat-note">
                {pick(lang, "first tool start → reply end", "第一个工具开始 → 回复结束")}
              </dd>
            </div>
          )}
          <div className="tl-stat">
            <dt>{pick(lang, "Saved", "节省")}</dt>
            <dd>{formatMs(chart.totalSavedMs, lang)}</dd>
            <dd className="tl-stat-note">
              {pick(
                lang,
                "reply end + longest tool − actual end",
                "回复结束 + 最长工具 − 实际结束",
              )}
            </dd>
          </div>
          <div className="tl-stat">
            <dt>{pick(lang, "Total", "总计")}</dt>
            <dd>{formatMs(chart.totalMs, lang)}</dd>
            <dd className="tl-stat-note">
              {pick(
                lang,
                `${chart.rounds.length} round${chart.rounds.length === 1 ? "" : "s"}`,
                `${chart.rounds.length} 轮`,
              )}
            </dd>
          </div>
        </dl>
      )}
    </div>
  );
}

const NONE_SIMULATED: Readonly<Record<string, SimulatedCall>> = {};

export function TimelinePanel({
  turns,
  selected,
  onSelect,
}: {
  turns: readonly ConversationTurn[];
  /** The index in `turns` of the assistant turn to show; the latest when undefined. */
  selected: number | undefined;
  onSelect: (index: number | undefined) => void;
}) {
  // The panel speaks the page's language; the reply's figures are explained in the reply's.
  const pageLang = useLang();
  const replies = turns.flatMap((turn, index) => {
    if (turn.role !== "assistant") return [];
    const asked = turns[index - 1];
    const label = asked?.role === "user" ? asked.text : pick(pageLang, "Reply", "回复");
    return [{ index, turn, label: label.length > 42 ? `${label.slice(0, 41)}…` : label }];
  });
  const current =
    replies.find((r) => r.index === selected) ??
    (selected === undefined ? replies.at(-1) : undefined) ??
    replies.at(-1);
  const chart = current ? turnChart(current.turn.rounds) : undefined;
  const lang = current ? turnLang(turns, current.index) : pageLang;
  const [developer] = useDeveloperView();
  const simulated = useDemoShared().state?.simulated ?? NONE_SIMULATED;
  // Rounds without timings are streaming only while their turn runs; in a restored turn they
  // were simply not recorded.
  const openRounds = current?.turn.done === undefined ? (chart?.openRounds ?? []) : [];

  return (
    <div className="timeline" data-testid="timeline">
      <header className="panel-head">
        <h2 className="panel-title">
          <Icon name="timeline" size={17} /> {pick(pageLang, "Timeline", "时间线")}
        </h2>
        {replies.length > 1 && current && (
          <label className="tl-select">
            <span className="visually-hidden">
              {pick(pageLang, "Reply to show", "要查看的回复")}
            </span>
            <select
              value={current.index}
              onChange={(e) => {
                const index = Number(e.target.value);
                onSelect(index === replies.at(-1)?.index ? undefined : index);
              }}
            >
              {replies.map((r, n) => (
                <option key={r.index} value={r.index}>
                  {n + 1}. {r.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <DeveloperToggle className="show-phone" />
      </header>
      <Legend lang={pageLang} />
      {!chart || (chart.rounds.length === 0 && openRounds.length === 0) ? (
        <div className="tl-empty">
          <Icon name="timeline" size={28} />
          <p>
            {current
              ? pick(pageLang, "No timings were kept for this reply.", "这条回复没有保留时间记录。")
              : pick(
                  pageLang,
                  "When the model wrote each block and when each tool ran, round by round. A tool starts the moment its arguments are complete, while the model is still writing.",
                  "逐轮显示模型写每一段的时间和每个工具运行的时间。工具在参数完整的那一刻就开始运行，模型还在写。",
                )}
          </p>
        </div>
      ) : (
        <div className="tl-rounds">
          {chart.rounds.length > 0 && (
            <TurnSummary chart={chart} lang={lang} developer={developer} simulated={simulated} />
          )}
          {chart.rounds.map((round) => (
            <RoundView
              key={round.round}
              chart={round}
              scale={chart.scaleMs}
              ticks={chart.ticks}
              lang={lang}
              developer={developer}
              simulated={simulated}
            />
          ))}
          {openRounds.map((round) => (
            <section key={`open-${round}`} className="tl-round tl-round-open" aria-busy="true">
              <header className="tl-round-head">
                <h3>{pick(lang, `Round ${round}`, `第 ${round} 轮`)}</h3>
                <span className="muted">{pick(lang, "streaming…", "进行中…")}</span>
              </header>
              <div className="tl-progress" />
            </section>
          ))}
        </div>
      )}
    </div>
  );
}
