/**
 * How the page answers a call that waits for the user's approval (checkout asks before it places
 * the order): `POST <session>/approvals/:callId` with `{ approve }`. The shopper's workspace says
 * which session answers ({@link useApprovalAnswers}); an approval card sends through it
 * ({@link answerApproval}). The turn's own stream then shows how the wait ended.
 */

import { useEffect } from "react";
import { ApiError, requestJson } from "../api/http";
import { type Credentials, isRecord } from "../api/types";
import { type Endpoints, sessionPath } from "../session/endpoints";

type Answer = (callId: string, approve: boolean, digest?: string) => Promise<void>;

/** The open session's answer (one workspace per page). */
let current: Answer | undefined;

/** Makes approval cards answer for this session while the calling component is mounted. */
export function useApprovalAnswers(endpoints: Endpoints, credentials: Credentials): void {
  const { id, token } = credentials;
  useEffect(() => {
    const answer: Answer = async (callId, approve, digest) => {
      await requestJson(
        sessionPath(endpoints, id, "approvals", callId),
        (value) => (isRecord(value) ? value : undefined),
        // The card's digest binds the answer to what it showed (the order's lines and total).
        { method: "POST", token, json: digest ? { approve, digest } : { approve } },
      );
    };
    current = answer;
    return () => {
      if (current === answer) current = undefined;
    };
  }, [endpoints, id, token]);
}

/**
 * Sends the user's decision on a waiting call.
 * @throws ApiError when the server refuses it (the wait already ended: 404 or 409) or is unreachable.
 */
export function answerApproval(callId: string, approve: boolean, digest?: string): Promise<void> {
  if (!current) {
    return Promise.reject(
      new ApiError(0, "no_session", "This page cannot answer right now. Reload the page."),
    );
  }
  return current(callId, approve, digest);
}
