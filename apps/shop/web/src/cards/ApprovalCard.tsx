/**
 * A call waiting for the user's approval, from its `approval-request`: what it will do
 * (for checkout, the order's lines and total; for a change to several products, its one table)
 * with Confirm and Cancel; nothing runs before Confirm. Once the wait ended
 * (`approval-resolved`), the card shows the outcome in the same place. Answers go through
 * {@link answerApproval}.
 */

import type { CallView } from "overlap-runtime/client";
import { useState } from "react";
import { messageOf } from "../api/http";
import { isRecord } from "../api/types";
import { answerApproval } from "../chat/approval-answers";
import { callProblem } from "../chat/call-words";
import { useChatView } from "../chat/view-context";
import { colorName } from "../i18n/color-words";
import { count, type Lang, pick } from "../i18n/lang";
import { merchantWords } from "../i18n/merchant-words";
import { Icon, Spinner } from "../ui/Icon";
import { ChangeTable, readChange } from "./MerchantCards";
import { orderChangeWords } from "./order-changes";
import "./approval-card.css";

interface OrderLine {
  key: string;
  /** The line's key in the order's effect: product, size and colour. */
  effectKey: string;
  quantity: number;
  name: string;
  variant: string;
  lineTotal: string;
}

/** The order of checkout's request (`details: { type: "order-summary", cart }`), if readable. */
function orderOf(
  details: Readonly<Record<string, unknown>> | undefined,
  lang: Lang,
): { lines: OrderLine[]; itemCount: number; total: string } | undefined {
  if (details?.type !== "order-summary" || !isRecord(details.cart)) return undefined;
  const { cart } = details;
  if (!Array.isArray(cart.lines) || typeof cart.total !== "string") return undefined;
  const lines = cart.lines.filter(isRecord).map(
    (line, i): OrderLine => ({
      key: `${String(line.productId)}-${i}`,
      effectKey: [line.productId, line.size ?? "", line.color ?? ""].map(String).join("|"),
      quantity: typeof line.quantity === "number" ? line.quantity : 0,
      name: typeof line.name === "string" ? line.name : String(line.productId),
      variant: [line.size, typeof line.color === "string" ? colorName(line.color, lang) : undefined]
        .filter((v) => typeof v === "string")
        .join(pick(lang, ", ", "，")),
      lineTotal: typeof line.lineTotal === "string" ? line.lineTotal : "",
    }),
  );
  const itemCount = typeof cart.itemCount === "number" ? cart.itemCount : 0;
  return { lines, itemCount, total: cart.total };
}

/** What the card says once the wait ended; `problem` is a failed call's plain sentence. */
function outcomeOf(
  entry: CallView,
  checkout: boolean,
  lang: Lang,
  problem: string | undefined,
): { text: string; ok: boolean } {
  const status = entry.approval?.status;
  const result = entry.result;
  if (status === "approved") {
    if (!result)
      return {
        text: checkout
          ? pick(lang, "Confirmed. Placing your order…", "已确认，正在下单…")
          : pick(lang, "Approved. Running…", "已同意，正在执行…"),
        ok: true,
      };
    if (result.isError) {
      const why = problem ?? (lang === "en" ? result.text : "");
      return {
        text: checkout
          ? pick(
              lang,
              `Confirmed, but the order could not be placed: ${why}`,
              `已确认，但没能下单。${why}`,
            )
          : pick(lang, `Approved, but it failed: ${why}`, `已同意，但没有成功。${why}`),
        ok: false,
      };
    }
    return {
      text: checkout
        ? pick(lang, "Confirmed. Your order is placed.", "已确认，订单已提交。")
        : pick(lang, "Approved and done.", "已同意并完成。"),
      ok: true,
    };
  }
  const what = checkout
    ? pick(lang, "No order was placed.", "没有下单。")
    : pick(lang, "It was not done.", "没有执行。");
  if (status === "declined")
    return { text: pick(lang, `Cancelled. ${what}`, `已取消，${what}`), ok: false };
  if (status === "timeout")
    return { text: pick(lang, `No answer in time. ${what}`, `没有及时确认，${what}`), ok: false };
  return { text: pick(lang, `The reply was stopped. ${what}`, `回复已停止，${what}`), ok: false };
}

export function ApprovalCard({ entry }: { entry: CallView }) {
  // Which answer was sent, for which ask of the call: a card asked again (its order changed)
  // takes a new answer.
  const [sent, setSent] = useState<{ what: "confirm" | "cancel"; ask: number } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const view = useChatView();
  const { lang } = view;
  const approval = entry.approval;
  if (!approval) return null;
  const ask = approval.ask ?? 1;
  const sending = sent?.ask === ask ? sent.what : undefined;
  const checkout = entry.name === "checkout";
  const pending = approval.status === "pending";
  // Once placed, the order's own card shows the lines: this one keeps only the outcome.
  const done =
    approval.status === "approved" && entry.result !== undefined && !entry.result.isError;
  const order = checkout && !done ? orderOf(approval.details, lang) : undefined;
  // A change to several products (the merchant's): its table, as the result will show it.
  const change =
    !done && approval.details?.type === "product-changes"
      ? readChange(approval.details.change)
      : undefined;
  const title = checkout
    ? pick(lang, "Confirm your order", "确认订单")
    : approval.details?.type === "product-changes"
      ? merchantWords(lang).approveChange
      : pick(lang, "Approve this action", "同意这项操作");

  const decide = (approve: boolean) => {
    setSent({ what: approve ? "confirm" : "cancel", ask });
    setError(undefined);
    // The digest binds a Confirm to this card: if the order changed meanwhile, nothing is
    // ordered and the server asks again with what changed.
    answerApproval(entry.callId, approve, approval.digest).then(
      // The stream shows the outcome; keep the buttons disabled until it arrives.
      () => {},
      (err: unknown) => {
        setSent(undefined);
        setError(messageOf(err));
      },
    );
  };

  const changed = approval.changes
    ? orderChangeWords(
        approval.changes,
        new Map(order?.lines.map((line) => [line.effectKey, line.name]) ?? []),
        lang,
      )
    : [];
  const outcome = pending
    ? undefined
    : outcomeOf(
        entry,
        checkout,
        lang,
        entry.result?.isError ? callProblem(entry, view) : undefined,
      );
  return (
    <section
      className="call-card approval-card"
      data-testid="approval-card"
      data-call-id={entry.callId}
      data-tool={entry.name}
      data-status={approval.status}
      aria-label={title}
    >
      <header className="card-head">
        <span className="card-icon">
          <Icon name={checkout ? "cart" : "info"} size={15} />
        </span>
        <h3 className="card-title approval-title">{title}</h3>
        <span className={`card-stage ${pending ? "stage-writing" : "stage-final"}`}>
          {pending ? pick(lang, "waiting for you", "等待您确认") : pick(lang, "answered", "已回答")}
        </span>
      </header>
      {pending && changed.length > 0 ? (
        <div className="approval-changes" data-testid="approval-changes" role="alert">
          <p>
            {checkout
              ? pick(
                  lang,
                  "Your order changed since you confirmed it, so nothing was ordered yet:",
                  "您确认之后订单有变化，所以还没有下单：",
                )
              : pick(
                  lang,
                  "This changed since you approved it, so nothing was done yet:",
                  "您同意之后内容有变化，所以还没有执行：",
                )}
          </p>
          <ul>
            {changed.map((words) => (
              <li key={words}>{words}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {order ? (
        <div className="order" data-testid="approval-order">
          <ul className="order-lines">
            {order.lines.map((line) => (
              <li key={line.key}>
                <span>
                  {line.quantity} × {line.name}
                  {line.variant && <span className="approval-variant"> ({line.variant})</span>}
                </span>
                <span className="num">{line.lineTotal}</span>
              </li>
            ))}
          </ul>
          <div className="order-total">
            <span>{count(lang, order.itemCount, "item")}</span>
            <strong data-testid="approval-total">{order.total}</strong>
          </div>
        </div>
      ) : change ? (
        <ChangeTable change={change} lang={lang} />
      ) : done ? null : (
        <p className="approval-summary">{approval.summary}</p>
      )}
      {pending ? (
        <>
          <div className="approval-actions">
            <button
              type="button"
              className="btn btn-primary"
              disabled={sending !== undefined}
              onClick={() => decide(true)}
            >
              {sending === "confirm" ? (
                <>
                  <Spinner size={12} /> {pick(lang, "Confirming…", "正在确认…")}
                </>
              ) : checkout ? (
                pick(lang, "Confirm order", "确认下单")
              ) : (
                pick(lang, "Approve", "同意")
              )}
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              disabled={sending !== undefined}
              onClick={() => decide(false)}
            >
              {checkout ? pick(lang, "Cancel order", "取消订单") : pick(lang, "Decline", "拒绝")}
            </button>
          </div>
          {error ? (
            <p className="card-note card-note-error" role="alert">
              {error}
            </p>
          ) : (
            <p className="approval-note muted">
              {checkout
                ? pick(lang, "Nothing is ordered until you confirm.", "您确认之前不会下单。")
                : pick(lang, "Nothing happens until you approve.", "您同意之前什么都不会发生。")}
            </p>
          )}
        </>
      ) : (
        <p className="approval-outcome" data-testid="approval-outcome" role="status">
          <Icon name={outcome?.ok ? "check" : "x"} size={14} />
          <span>{outcome?.text}</span>
        </p>
      )}
    </section>
  );
}
