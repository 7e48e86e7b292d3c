/**
 * What the runtime did when a reply broke (a dropped connection, an error event, a reply cut by
 * its token limit, arguments that are not valid JSON), in words under the reply: which calls kept
 * their result and which were answered as not run, and that the conversation goes on. Facts come
 * from the turn's own events (each call's result status), never from the demo settings.
 */

import type { AgentState, AssistantTurn, CallView } from "overlap-runtime/client";
import { callSentence } from "../chat/call-words";
import { toolLabel } from "../chat/tool-meta";
import { useChatView } from "../chat/view-context";
import { type Lang, pick } from "../i18n/lang";
import { Icon } from "../ui/Icon";

/** Result statuses of calls the runtime answered without running them to the end. */
const NOT_RUN = new Set(["not_executed", "interrupted"]);

/** Why a reply needed repair, or `undefined` when it did not. */
export type BreakCause = "dropped" | "error" | "max_tokens" | "invalid_json";

/** The break a turn went through, from its events. */
export function breakCause(
  turn: AssistantTurn,
  calls: readonly CallView[],
): BreakCause | undefined {
  const code = turn.error?.code;
  if (code === "stream_interrupted") return "dropped";
  if (
    code !== undefined &&
    code !== "aborted" &&
    calls.some((c) => NOT_RUN.has(c.result?.status ?? ""))
  ) {
    return "error";
  }
  if (
    turn.done?.stopReason === "max_tokens" ||
    Object.values(turn.rounds).some((r) => r.stopReason === "max_tokens")
  ) {
    return "max_tokens";
  }
  if (calls.some((c) => c.dispatch === "invalid")) return "invalid_json";
  if (code !== undefined && code !== "aborted" && calls.length > 0) return "error";
  return undefined;
}

const CAUSE: Record<BreakCause, { en: string; zh: string }> = {
  dropped: {
    en: "The connection to the model dropped in the middle of this reply.",
    zh: "这条回复写到一半时，与模型的连接断开了。",
  },
  error: {
    en: "The model's reply failed midway with an error.",
    zh: "模型的回复中途出错了。",
  },
  max_tokens: {
    en: "The reply ran out of tokens (max_tokens) in the middle of a tool call.",
    zh: "回复在工具调用中途用完了 token（max_tokens）。",
  },
  invalid_json: {
    en: "A tool call arrived with arguments that are not valid JSON.",
    zh: "有一个工具调用的参数不是有效的 JSON。",
  },
};

function list(lang: Lang, items: readonly string[]): string {
  return items.join(lang === "zh" ? "；" : "; ");
}

/** The note, or nothing for a reply that did not break. */
export function RepairNote({ turn, state }: { turn: AssistantTurn; state: AgentState }) {
  const view = useChatView();
  const { lang, developer } = view;
  if (turn.done === undefined && turn.error === undefined) return null;
  const calls = turn.items.flatMap((item) => {
    const entry = item.kind === "call" ? state.calls[item.callId] : undefined;
    return entry ? [entry] : [];
  });
  const cause = breakCause(turn, calls);
  if (cause === undefined) return null;
  const name = (c: CallView) => (developer ? `${c.name} ${c.callId}` : toolLabel(c.name));
  const kept = calls.filter((c) => c.result?.status === "ok");
  const notRun = calls.filter(
    (c) => c.result?.status === "not_executed" || c.dispatch === "invalid",
  );
  // Running when the reply broke: aborted, and answered so.
  const stopped = calls.filter((c) => c.result?.status === "interrupted");
  const goesOn =
    turn.error === undefined
      ? pick(lang, "The model was told, and the reply went on.", "模型已得知情况，回复继续进行。")
      : pick(
          lang,
          "The conversation is intact: send your next message as usual.",
          "对话完好无损：像平常一样发送下一条消息即可。",
        );
  return (
    <div className="repair-note" data-testid="repair-note" data-cause={cause} role="note">
      <p className="repair-head">
        <Icon name="refresh" size={14} />
        <strong>{pick(lang, "Repaired", "已修复")}</strong> {CAUSE[cause][lang]}
      </p>
      <ul className="repair-list">
        {kept.length > 0 && (
          <li data-testid="repair-kept">
            {pick(lang, "Kept their result: ", "保留了结果：")}
            {list(
              lang,
              kept.map((c) => (developer ? name(c) : callSentence(c, view))),
            )}
          </li>
        )}
        {notRun.length > 0 && (
          <li data-testid="repair-not-run">
            {pick(lang, "Answered as not run: ", "标记为未执行：")}
            {list(lang, notRun.map(name))}
          </li>
        )}
        {stopped.length > 0 && (
          <li data-testid="repair-stopped">
            {pick(
              lang,
              "Stopped while running, answered as such: ",
              "运行中被中止，并如实告知模型：",
            )}
            {list(lang, stopped.map(name))}
          </li>
        )}
        {kept.length === 0 && notRun.length === 0 && stopped.length === 0 && (
          <li>{pick(lang, "No tool call was under way.", "当时没有进行中的工具调用。")}</li>
        )}
      </ul>
      <p className="repair-go-on">{goesOn}</p>
    </div>
  );
}
