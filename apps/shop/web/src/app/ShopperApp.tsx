/** The shopper's page: chat with the shopping assistant, the cart and the timeline. */

import { useCallback, useEffect, useMemo, useState } from "react";
import { requestJson } from "../api/http";
import { readCredentials } from "../api/types";
import type { CardActions } from "../cards/ProductCards";
import { CartPanel } from "../cart/CartPanel";
import { useCart } from "../cart/use-cart";
import { useApprovalAnswers } from "../chat/approval-answers";
import { ChatPanel } from "../chat/ChatPanel";
import { productBook } from "../chat/product-book";
import { useChat } from "../chat/use-chat";
import { HowItWorksButton, HowItWorksDrawer } from "../demo/HowItWorks";
import { latestLang } from "../i18n/lang";
import { SHOPPER } from "../session/endpoints";
import { shopperSession } from "../session/storage";
import { type SessionLoad, useSessionLoader } from "../session/use-session-loader";
import { TimelinePanel } from "../timeline/TimelinePanel";
import { Icon } from "../ui/Icon";
import { ErrorView, LoadingView, Shell } from "./Shell";
import { type HealthState, useRetryWhenBack } from "./use-health";
import { Workspace } from "./Workspace";

const SUGGESTIONS = [
  "add the Aero trail runner and the wool socks to my cart and tell me the total",
  "show me running shoes under 100",
  "ask the merchant when the Aero trail runner is back in stock",
  "把两件商品加入购物车，然后算一下总价",
];

const createShopperSession = (signal: AbortSignal) =>
  requestJson(SHOPPER.base, readCredentials, { method: "POST", signal });

export function ShopperApp({ health }: { health: HealthState }) {
  const { load, retry, restart } = useSessionLoader({
    endpoints: SHOPPER,
    slot: shopperSession,
    create: createShopperSession,
  });
  useRetryWhenBack(load.status === "error" && load.error.status === 0, retry);
  return (
    <Shell
      view="shop"
      health={health}
      actions={
        <>
          <HowItWorksButton lang="en" />
          <button
            type="button"
            className="btn btn-ghost"
            onClick={restart}
            aria-label="Start a new conversation"
          >
            <Icon name="new" size={15} />
            <span className="hide-narrow">New chat</span>
          </button>
        </>
      }
    >
      {load.status === "loading" && <LoadingView label="Opening your conversation…" />}
      {load.status === "error" && <ErrorView message={load.error.message} onRetry={retry} />}
      {load.status === "ready" && (
        <ShopperWorkspace key={load.credentials.id} load={load} onRestart={restart} />
      )}
    </Shell>
  );
}

function ShopperWorkspace({
  load,
  onRestart,
}: {
  load: Extract<SessionLoad, { status: "ready" }>;
  onRestart: () => void;
}) {
  const chat = useChat(SHOPPER, load.credentials, load.initialState, load.follow);
  // Approval cards (checkout's Confirm / Cancel) answer for this session.
  useApprovalAnswers(SHOPPER, load.credentials);
  const cart = useCart(load.credentials, chat.state, chat.replaying);
  const [tab, setTab] = useState("chat");
  const [selected, setSelected] = useState<number | undefined>();
  const [cartPulse, setCartPulse] = useState(false);

  // A new message shows the latest reply on the timeline again.
  const userTurns = chat.state.turns.filter((t) => t.role === "user").length;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a message is added
  useEffect(() => setSelected(undefined), [userTurns]);

  useEffect(() => {
    if (cart.assistantUpdates === 0) return;
    setCartPulse(true);
    const timer = setTimeout(() => setCartPulse(false), 1_600);
    return () => clearTimeout(timer);
  }, [cart.assistantUpdates]);

  const { change, busy } = cart;
  const inCart = useMemo(
    () => new Map((cart.cart?.lines ?? []).map((l) => [l.productId, l.quantity] as const)),
    [cart.cart],
  );
  const actions = useMemo<CardActions>(
    () => ({
      addToCart: (productId) => void change({ kind: "add", productId, quantity: 1 }),
      busyProductId: busy,
      inCart,
    }),
    [change, busy, inCart],
  );
  const book = useMemo(() => productBook(chat.state, cart.cart), [chat.state, cart.cart]);
  const showTimeline = useCallback((index: number) => {
    setSelected(index);
    setTab("timeline");
  }, []);
  const { send } = chat;
  const checkout = useCallback(() => {
    send("Check out, please.");
    setTab("chat");
  }, [send]);

  return (
    <>
      {/* The "How it works" demonstration drawer (its button is in the top bar). */}
      <HowItWorksDrawer
        credentials={load.credentials}
        turns={chat.state.turns}
        lang={latestLang(chat.state.turns)}
      />
      <Workspace
        tab={tab}
        onTab={setTab}
        chat={
          <ChatPanel
            chat={chat}
            actions={actions}
            agentName="Shopping assistant"
            placeholder="Ask about products or your cart…"
            notice={load.notice}
            onShowTimeline={showTimeline}
            onRestart={onRestart}
            book={book}
            empty={<Welcome onPick={chat.send} />}
          />
        }
        panels={[
          {
            id: "cart",
            label: "Cart",
            icon: "cart",
            badge: cart.cart?.itemCount,
            pulse: cartPulse,
            node: (
              <CartPanel
                model={cart}
                onCheckout={checkout}
                running={chat.state.running}
                book={book}
              />
            ),
          },
          {
            id: "timeline",
            label: "Timeline",
            icon: "timeline",
            node: (
              <TimelinePanel turns={chat.state.turns} selected={selected} onSelect={setSelected} />
            ),
          },
        ]}
      />
    </>
  );
}

function Welcome({ onPick }: { onPick: (text: string) => void }) {
  return (
    <div className="welcome">
      <div className="welcome-mark" aria-hidden="true">
        <Icon name="spark" size={22} />
      </div>
      <h1>What are you shopping for?</h1>
      <p className="muted">
        Ask in English or 中文. Watch the tool chips: each tool starts the moment its arguments are
        complete, while the reply is still being written.
      </p>
      <ul className="suggestions" aria-label="Try one of these">
        {SUGGESTIONS.map((s) => (
          <li key={s}>
            <button type="button" className="suggestion" onClick={() => onPick(s)}>
              {s}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
