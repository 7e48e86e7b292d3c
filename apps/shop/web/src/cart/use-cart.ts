/**
 * The shopper's cart as the panel shows it. The cart is the shopper's, not the chat's: the page
 * hands the cart it showed to the next chat's panel (`initial`), which shows it at once and then
 * loads it again. Two sources, newest wins: the REST API (loaded at
 * start, after each turn, and answered by every change made from the panel) and the assistant's
 * `cart-updated` events, which arrive while the model is still talking. A change refused by a
 * cart rule (409) keeps the cart and shows the rule's own sentence. A change or load that could not
 * reach the server says so; when the server answers again the cart is loaded again and that
 * message goes away by itself.
 */

import { type AgentState, cartOf } from "overlap-runtime/client";
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, messageOf, requestJson } from "../api/http";
import { type Cart, type Credentials, isRecord, readCart } from "../api/types";
import { useRetryWhenBack } from "../app/use-health";
import { SHOPPER, sessionPath } from "../session/endpoints";

/** A change asked for from the panel (or a product card). */
export type CartChange =
  | { kind: "add"; productId: string; quantity: number; size?: string; color?: string }
  | {
      kind: "set";
      productId: string;
      quantity?: number;
      /** A new size or colour (a line that lacks one gets it). */
      size?: string;
      color?: string;
      /** The line's current size and colour: which line, when the product has several. */
      line?: { size?: string | undefined; color?: string | undefined };
    }
  | {
      kind: "remove";
      productId: string;
      line?: { size?: string | undefined; color?: string | undefined };
    };

/** A message about the cart for the user. */
export interface CartNotice {
  /** `rule` for a refused change (409), `error` for anything else. */
  kind: "rule" | "error";
  message: string;
  /** The refusal's code and facts, from which the panel writes its sentence. */
  problem: { code: string; params?: Readonly<Record<string, unknown>> } | undefined;
  /** Increases with each notice, so the same sentence twice is announced twice. */
  seq: number;
}

export interface CartModel {
  cart: Cart | undefined;
  /** The product whose line is being changed, if any. */
  busy: string | undefined;
  notice: CartNotice | undefined;
  dismiss: () => void;
  /** Increases each time the assistant changed the cart (for a short highlight). */
  assistantUpdates: number;
  change: (change: CartChange) => Promise<boolean>;
  /** Loads the cart again; `false` when that failed. */
  refresh: () => Promise<boolean>;
  loadFailed: boolean;
}

/** Default per-line limit until the REST API has told us. */
const DEFAULT_MAX_PER_LINE = 10;

const readCartAnswer = (value: unknown) => (isRecord(value) ? readCart(value.cart) : undefined);

export function useCart(
  credentials: Credentials,
  agent: AgentState,
  replaying: boolean,
  initial?: Cart,
): CartModel {
  const { id, token } = credentials;
  const [cart, setCart] = useState<Cart | undefined>(initial);
  const [busy, setBusy] = useState<string | undefined>();
  const [notice, setNotice] = useState<CartNotice | undefined>();
  const [assistantUpdates, setAssistantUpdates] = useState(0);
  const [loadFailed, setLoadFailed] = useState(false);
  /** The last request failed because the server could not be reached. */
  const [unreachable, setUnreachable] = useState(false);
  const maxPerLine = useRef(DEFAULT_MAX_PER_LINE);
  const seq = useRef(0);

  const accept = useCallback((next: Cart) => {
    if (next.maxQuantityPerLine !== undefined) maxPerLine.current = next.maxQuantityPerLine;
    setCart({ ...next, maxQuantityPerLine: next.maxQuantityPerLine ?? maxPerLine.current });
  }, []);

  const refresh = useCallback(async () => {
    try {
      accept(await requestJson(sessionPath(SHOPPER, id, "cart"), readCartAnswer, { token }));
      setLoadFailed(false);
      setUnreachable(false);
      return true;
    } catch (err) {
      setLoadFailed(true);
      if (err instanceof ApiError && err.status === 0) setUnreachable(true);
      return false;
    }
  }, [id, token, accept]);

  // The assistant's carts, as they arrive (not those of a replayed, finished turn: history).
  const uiCart = cartOf(agent);
  const seenUiCart = useRef<unknown>(uiCart);
  useEffect(() => {
    if (uiCart === seenUiCart.current) return;
    seenUiCart.current = uiCart;
    if (replaying) return;
    const next = readCart(uiCart);
    if (!next) return;
    accept(next);
    setAssistantUpdates((n) => n + 1);
  }, [uiCart, replaying, accept]);

  // Authoritative reloads: at start, and whenever a turn (or the replay of one) has ended.
  useEffect(() => {
    void refresh();
  }, [refresh]);
  const settled = !agent.running && !replaying;
  const wasSettled = useRef(settled);
  useEffect(() => {
    if (settled && !wasSettled.current) void refresh();
    wasSettled.current = settled;
  }, [settled, refresh]);

  const change = useCallback(
    async (change: CartChange) => {
      setBusy(change.productId);
      const base = sessionPath(SHOPPER, id, "cart", "items");
      const item = `${base}/${encodeURIComponent(change.productId)}`;
      const only =
        change.kind === "remove" && change.line
          ? new URLSearchParams(
              Object.entries(change.line).filter((e): e is [string, string] => e[1] !== undefined),
            ).toString()
          : "";
      try {
        const next = await requestJson(
          change.kind === "add" ? base : only ? `${item}?${only}` : item,
          readCartAnswer,
          change.kind === "add"
            ? {
                method: "POST",
                token,
                json: {
                  productId: change.productId,
                  quantity: change.quantity,
                  size: change.size,
                  color: change.color,
                },
              }
            : change.kind === "set"
              ? {
                  method: "PATCH",
                  token,
                  json: {
                    quantity: change.quantity,
                    size: change.size,
                    color: change.color,
                    line: change.line,
                  },
                }
              : { method: "DELETE", token },
        );
        accept(next);
        setNotice(undefined);
        setUnreachable(false);
        return true;
      } catch (err) {
        if (err instanceof ApiError && err.status === 0) setUnreachable(true);
        seq.current++;
        setNotice({
          kind: err instanceof ApiError && err.status === 409 ? "rule" : "error",
          message: messageOf(err),
          problem:
            err instanceof ApiError
              ? { code: err.code, ...(err.params ? { params: err.params } : {}) }
              : undefined,
          seq: seq.current,
        });
        return false;
      } finally {
        setBusy(undefined);
      }
    },
    [id, token, accept],
  );

  const dismiss = useCallback(() => setNotice(undefined), []);

  // Back from unreachable: the cart as it is now, and no word about the failure any more.
  const recover = useCallback(() => {
    setNotice((n) => (n?.kind === "error" ? undefined : n));
    void refresh();
  }, [refresh]);
  useRetryWhenBack(unreachable, recover);

  return { cart, busy, notice, dismiss, assistantUpdates, change, refresh, loadFailed };
}
