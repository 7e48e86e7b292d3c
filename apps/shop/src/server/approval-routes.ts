/**
 * The user's answer to a call that waits for approval (checkout asks before it places
 * the order). `POST <base>/:id/approvals/:callId` with `{ "approve": true | false, "reason"?,
 * "digest"? }` (the request's digest: a Confirm of a card that has since changed approves nothing)
 * and the session's token resolves the call waiting in the session's running turn (through the
 * {@link TurnRegistry}); the turn's stream then carries `approval-resolved` and what follows.
 * 404 `approval_not_found`: no call of the running turn waits (or waited) under that id, or no
 * turn runs; 409 `approval_decided`: it was answered already, timed out, or was cancelled.
 */

import type { Hono } from "hono";
import type { ApprovalResolution } from "overlap-runtime";
import { z } from "zod";
import type { SessionKind, ShopStore } from "../db/shop-store.js";
import type { AppEnv } from "./app-env.js";
import { HttpError } from "./http-error.js";
import { readJson } from "./read-json.js";
import { requireSession } from "./require-session.js";
import type { TurnRegistry } from "./turn-registry.js";

/** The longest reason a user may give, in characters (quoted to the model). */
export const MAX_REASON_CHARS = 500;

/** A lone UTF-16 surrogate or NUL: text no model API or database carries safely. */
const UNSTORABLE = /[\uD800-\uDFFF\0]/u;

const DecisionBody = z.object({
  approve: z.boolean(),
  /** The digest of the card the user answered: an approval binds to exactly what it showed. */
  digest: z
    .string()
    .regex(/^sha256:[0-9a-f]{64}$/)
    .optional(),
  reason: z
    .string()
    .max(MAX_REASON_CHARS)
    .refine((text) => !UNSTORABLE.test(text), "must be well-formed text without NUL")
    .optional(),
});

const ENDED: Readonly<Record<ApprovalResolution, string>> = {
  approved: "This action was already approved.",
  declined: "This action was already declined.",
  timeout: "This approval request expired: no answer came in time, so the action was not taken.",
  cancelled: "This approval request was cancelled with the reply.",
};

/** Registers the approval route of `kind` sessions under `base` (e.g. `/api/sessions`). */
export function registerApprovalRoutes(
  app: Hono<AppEnv>,
  base: string,
  kind: SessionKind,
  deps: { store: ShopStore; turns: TurnRegistry },
): void {
  app.post(`${base}/:id/approvals/:callId`, requireSession(deps.store, kind), async (c) => {
    const body = await readJson(c, DecisionBody);
    const callId = c.req.param("callId");
    const reason = body.reason?.trim();
    // A call id that cannot be one never gets here (`requireSession` checks the path's ids).
    const result = await deps.turns.decide(c.get("session").id, callId, {
      approve: body.approve,
      ...(reason ? { reason } : {}),
      ...(body.digest ? { digest: body.digest } : {}),
    });
    if (result.status === "unknown") {
      throw new HttpError(
        404,
        "approval_not_found",
        "Nothing in this conversation is waiting for approval under that id (the reply may have ended).",
      );
    }
    if (result.status === "ended") {
      throw new HttpError(409, "approval_decided", ENDED[result.decision]);
    }
    return c.json({ callId, decision: body.approve ? "approved" : "declined" });
  });
}
