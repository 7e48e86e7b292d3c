/**
 * The shopper's credentials: the id of the chat on screen and a token that stands for the
 * shopper (the shopper's own token, or, remembered by an older page, one of their chats' tokens:
 * the server accepts either for every chat of the shopper). A new chat keeps the token.
 * "Forget me on this device" revokes them on the server; the page then forgets them too.
 */

import { ApiError, requestJson } from "../api/http";
import { type Credentials, isRecord } from "../api/types";
import { SHOPPER } from "./endpoints";

/** Reads `POST /api/sessions`' answer, keeping the shopper's token when it came with one. */
export function readNewShopperSession(value: unknown): Credentials | undefined {
  if (!isRecord(value) || typeof value.id !== "string" || typeof value.token !== "string") {
    return undefined;
  }
  const shopperToken = typeof value.shopperToken === "string" ? value.shopperToken : undefined;
  return { id: value.id, token: shopperToken ?? value.token };
}

/** Starts the page as a new shopper with a first chat. */
export const createShopper = (signal: AbortSignal): Promise<Credentials> =>
  requestJson(SHOPPER.base, readNewShopperSession, { method: "POST", signal });

/** A new chat of the shopper `current.token` stands for; the token is kept. */
export async function newShopperChat(
  signal: AbortSignal,
  current: Credentials,
): Promise<Credentials> {
  const chat = await requestJson(SHOPPER.base, readNewShopperSession, {
    method: "POST",
    token: current.token,
    signal,
  });
  return { id: chat.id, token: current.token };
}

/**
 * Revokes, on the server, the token `current` holds and every other token of its shopper
 * (`POST /api/shopper/forget`). A token the server no longer accepts (401) is forgotten already.
 * @throws ApiError when the server could not do it (unreachable, another failure).
 */
export async function forgetShopper(signal: AbortSignal, current: Credentials): Promise<void> {
  try {
    await requestJson(
      "/api/shopper/forget",
      (value) => (isRecord(value) && value.forgotten === true ? true : undefined),
      { method: "POST", token: current.token, signal },
    );
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return;
    throw err;
  }
}
