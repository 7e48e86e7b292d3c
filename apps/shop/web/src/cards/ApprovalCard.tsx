/**
 * A call waiting for the user's approval, from its `approval-request`: what it will do
 * (for checkout, the order's lines and total) with Confirm and Cancel; nothing runs before
 * Confirm. Once the wait ended (`approval-resolved`), the card shows the outcome in the same
 * place. Answers go through {@link answerApproval}.
 */

import type { CallEntry } from "overlap-runtime/client";
import { useState } from "react";
import { messageOf } from "../api/http";
import { isRecord } from "../api/types";
import { answerApproval } from "../chat/approval-answers";
import { Icon, Spinner } from "../ui/Icon";
import "./approval-card.css";

interface OrderLine {
  key: string;
  quantity: number;
  name: string;
  variant: string;
  lineTotal: string;
}

/** The order of checkout's request (`details: { type: "order-summary", cart }`), if readable. */
function orderOf(
  details: Readonly<Record<string, unknown>> | undefined,
): { lines: OrderLine[]; itemCount: number; total: string } | undefined {
  if (details?.type !== "order-summary" || !isRecord(details.cart)) return undefined;
  const { cart } = details;
  if (!Array.isArray(cart.lines) || typeof cart.total !== "string") return undefined;
  const lines = cart.lines.filter(isRecord).map(
    (line, i): OrderLine => ({
      key: `${String(line.productId)}-${i}`,
      quantity: typeof line.quantity === "number" ? line.quantity : 0,
      name: typeof line.name === "string" ? line.name : String(line.productId),
      variant: [line.size, line.color].filter((v) => typeof v === "string").join(", "),
      lineTotal: typeof line.lineTotal === "string" ? line.lineTotal : "",
    }),
  );
  const itemCount = typeof cart.itemCount === "number" ? cart.itemCount : 0;
  return { lines, itemCount, total: cart.total };
}

/** What the card says once the wait ended. */
function outcomeOf(entry: CallEntry, checkout: boolean): { text: string; ok: boolean } {
  const status = entry.approval?.status;
  const result = entry.result;
  if (status === "approved") {
    if (!result)
      return { text: checkout ? "Confirmed. Placing your order…" : "Approved. Running…", ok: true };
    if (result.isError) {
      return {
        text: checkout
          ? `Confirmed, but the order could not be placed: ${result.text}`
          : `Approved, but it failed: ${result.text}`,
        ok: false,
      };
    }
    return { text: checkout ? "Confirmed. Your order is placed." : "Approved and done.", ok: true };
  }
  const what = checkout ? "No order was placed." : "It was not done.";
  if (status === "declined") return { text: `Cancelled. ${what}`, ok: false };
  if (status === "timeout") return { text: `No answer in time. ${what}`, ok: false };
  return { text: `The reply was stopped. ${what}`, ok: false };
}

export function ApprovalCard({ entry }: { entry: CallEntry }) {
  const [sending, setSending] = useState<"confirm" | "cancel" | undefined>();
  const [error, setError] = useState<string | undefined>();
  const approval = entry.approval;
  if (!approval) return null;
  const checkout = entry.name === "checkout";
  const pending = approval.status === "pending";
  // Once placed, the order's own card shows the lines: this one keeps only the outcome.
  const done =
    approval.status === "approved" && entry.result !== undefined && !entry.result.isError;
  const order = checkout && !done ? orderOf(approval.details) : undefined;

  const decide = (approve: boolean) => {
    setSending(approve ? "confirm" : "cancel");
    setError(undefined);
    answerApproval(entry.callId, approve).then(
      // The stream shows the outcome; keep the buttons disabled until it arrives.
      () => {},
      (err: unknown) => {
        setSending(undefined);
        setError(messageOf(err));
      },
    );
  };

  const outcome = pending ? undefined : outcomeOf(entry, checkout);
  return (
    <section
      className="call-card approval-card"
      data-testid="approval-card"
      data-call-id={entry.callId}
      data-tool={entry.name}
      data-status={approval.status}
      aria-label={checkout ? "Confirm your order" : "Approve this action"}
    >
      <header className="card-head">
        <span className="card-icon">
          <Icon name={checkout ? "cart" : "info"} size={15} />
        </span>
        <h3 className="card-title">{checkout ? "Confirm your order" : "Approve this action"}</h3>
        <span className={`card-stage ${pending ? "stage-writing" : "stage-final"}`}>
          {pending ? "waiting for you" : "answered"}
        </span>
      </header>
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
            <span>
              {order.itemCount} item{order.itemCount === 1 ? "" : "s"}
            </span>
            <strong data-testid="approval-total">{order.total}</strong>
          </div>
        </div>
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
                  <Spinner size={12} /> Confirming…
                </>
              ) : checkout ? (
                "Confirm order"
              ) : (
                "Approve"
              )}
            </button>
            <button
              type="button"
              className="btn btn-ghost"
              disabled={sending !== undefined}
              onClick={() => decide(false)}
            >
              {checkout ? "Cancel order" : "Decline"}
            </button>
          </div>
          {error ? (
            <p className="card-note card-note-error" role="alert">
              {error}
            </p>
          ) : (
            <p className="approval-note muted">
              {checkout
                ? "Nothing is ordered until you confirm."
                : "Nothing happens until you approve."}
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
