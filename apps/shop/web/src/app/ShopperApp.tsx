/**
 * The shopper's page: chat with the shopping assistant, the cart and the timeline. The cart and
 * the orders belong to the shopper, not to one chat: the bar above the conversation has "New
 * chat" (a new chat of the same shopper: the cart stays), "Chats" (the shopper's chats, to reopen
 * one), "Orders" (what was ordered) and "Forget me" (after a confirmation, the shopper's tokens
 * are revoked and the page starts over as a new shopper). The page speaks the shopper's language (that of their latest message, kept across
 * chats).
 */

import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Cart } from "../api/types";
import type { CardActions } from "../cards/ProductCards";
import { CartPanel } from "../cart/CartPanel";
import { useCart } from "../cart/use-cart";
import { useApprovalAnswers } from "../chat/approval-answers";
import { ChatPanel } from "../chat/ChatPanel";
import { productBook } from "../chat/product-book";
import { useChat } from "../chat/use-chat";
import { HowItWorksButton, HowItWorksDrawer } from "../demo/HowItWorks";
import { type Lang, latestLang, pick } from "../i18n/lang";
import { LangContext, setShopperLang, shopperLang, useShopperLang } from "../i18n/shopper-lang";
import { SHOPPER } from "../session/endpoints";
import { createShopper, newShopperChat } from "../session/shopper-credentials";
import { shopperSession } from "../session/storage";
import { type SessionLoad, useSessionLoader } from "../session/use-session-loader";
import { AccountBar } from "../shopper/AccountBar";
import { ChatsDrawer } from "../shopper/ChatsDrawer";
import { ForgetDialog } from "../shopper/ForgetDialog";
import { OrdersDrawer } from "../shopper/OrdersDrawer";
import { TimelinePanel } from "../timeline/TimelinePanel";
import { Icon } from "../ui/Icon";
import { ErrorView, LoadingView, Shell } from "./Shell";
import { type HealthState, useRetryWhenBack } from "./use-health";
import { Workspace } from "./Workspace";

/** The welcome screen's suggestions, in the page's language; each does what it says as written. */
const SUGGESTIONS: Readonly<Record<Lang, readonly string[]>> = {
  en: [
    "add the Volt Aero trail runner in size 10 and the charcoal wool socks in size M to my cart and tell me the total",
    "show me running shoes under 100",
    "ask the merchant when the Aero trail runner is back in stock",
    "把10码荧光绿的Aero越野跑鞋加入购物车，然后算一下总价",
  ],
  zh: [
    "把10码荧光绿的Aero越野跑鞋加入购物车，然后算一下总价",
    "给我看看100美元以下的跑鞋",
    "问问商家Aero越野跑鞋什么时候补货",
    "我的订单呢",
  ],
};

/** Which drawer is open over the page. */
type Drawer = "chats" | "orders" | "forget" | undefined;

/** Said once the page forgot the shopper and started over. */
const forgottenHere = (lang: Lang) =>
  pick(
    lang,
    "This device no longer remembers you: your tokens were revoked. You are starting over as a new shopper.",
    "此设备已不再记住您：您的凭证已被撤销。您现在作为新顾客重新开始。",
  );

export function ShopperApp({ health }: { health: HealthState }) {
  const { load, switching, retry, restart, open, startOver } = useSessionLoader({
    endpoints: SHOPPER,
    slot: shopperSession,
    create: createShopper,
    newChat: newShopperChat,
    lang: shopperLang,
  });
  useRetryWhenBack(load.status === "error" && load.error.status === 0, retry);
  const lang = useShopperLang();
  const [drawer, setDrawer] = useState<Drawer>();
  const closeDrawer = useCallback(() => setDrawer(undefined), []);
  // The cart shown last, for the next chat's panel to start from (the cart is the shopper's).
  const lastCart = useRef<Cart | undefined>(undefined);
  // The chat on screen has no message yet: "New chat" keeps it instead of making another.
  const emptyChat = useRef(false);
  const newChat = useCallback(() => {
    setDrawer(undefined);
    if (!emptyChat.current) restart();
  }, [restart]);
  const openChat = useCallback(
    (id: string) => {
      setDrawer(undefined);
      open(id);
    },
    [open],
  );
  const forgotten = useCallback(() => {
    setDrawer(undefined);
    // Nothing of the old shopper carries over: the new one starts with an empty cart.
    lastCart.current = undefined;
    startOver(forgottenHere(shopperLang()));
  }, [startOver]);
  const ready = load.status === "ready" ? load : undefined;

  return (
    <LangContext.Provider value={lang}>
      <Shell view="shop" health={health} actions={<HowItWorksButton lang={lang} />}>
        {load.status === "loading" && (
          <LoadingView label={pick(lang, "Opening your conversation…", "正在打开对话…")} />
        )}
        {load.status === "error" && <ErrorView message={load.error.message} onRetry={retry} />}
        {ready && (
          <ShopperWorkspace
            key={ready.credentials.id}
            load={ready}
            lang={lang}
            onRestart={newChat}
            lastCart={lastCart}
            emptyChat={emptyChat}
            bar={
              <AccountBar
                onChats={() => setDrawer("chats")}
                onOrders={() => setDrawer("orders")}
                onNewChat={newChat}
                onForget={() => setDrawer("forget")}
                switching={switching}
              />
            }
          />
        )}
        {ready && drawer === "chats" && (
          <ChatsDrawer
            token={ready.credentials.token}
            currentId={ready.credentials.id}
            onOpen={openChat}
            onNewChat={newChat}
            onClose={closeDrawer}
          />
        )}
        {ready && drawer === "orders" && (
          <OrdersDrawer token={ready.credentials.token} onClose={closeDrawer} />
        )}
        {ready && drawer === "forget" && (
          <ForgetDialog
            credentials={ready.credentials}
            onForgotten={forgotten}
            onClose={closeDrawer}
          />
        )}
      </Shell>
    </LangContext.Provider>
  );
}

function ShopperWorkspace({
  load,
  lang,
  onRestart,
  lastCart,
  emptyChat,
  bar,
}: {
  load: Extract<SessionLoad, { status: "ready" }>;
  lang: Lang;
  onRestart: () => void;
  lastCart: { current: Cart | undefined };
  emptyChat: { current: boolean };
  /** The chats / orders / new chat bar above the conversation. */
  bar: ReactNode;
}) {
  const chat = useChat(SHOPPER, load.credentials, load.initialState, load.follow);
  // Approval cards (checkout's Confirm / Cancel) answer for this session.
  useApprovalAnswers(SHOPPER, load.credentials);
  const cart = useCart(load.credentials, chat.state, chat.replaying, lastCart.current);
  const [tab, setTab] = useState("chat");
  const [selected, setSelected] = useState<number | undefined>();
  const [cartPulse, setCartPulse] = useState(false);

  useEffect(() => {
    lastCart.current = cart.cart;
  }, [cart.cart, lastCart]);
  const empty = chat.state.turns.length === 0 && !chat.state.running;
  useEffect(() => {
    emptyChat.current = empty;
  }, [empty, emptyChat]);

  // The page follows the language of the shopper's latest message (kept for the next chat).
  const userTurns = chat.state.turns.filter((t) => t.role === "user").length;
  const spoken = userTurns > 0 ? latestLang(chat.state.turns) : undefined;
  useEffect(() => {
    if (spoken) setShopperLang(spoken);
  }, [spoken]);

  // A new message shows the latest reply on the timeline again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a message is added
  useEffect(() => setSelected(undefined), [userTurns]);

  useEffect(() => {
    if (cart.assistantUpdates === 0) return;
    setCartPulse(true);
    const timer = setTimeout(() => setCartPulse(false), 1_600);
    return () => clearTimeout(timer);
  }, [cart.assistantUpdates]);

  const { change, busy } = cart;
  const inCart = useMemo(() => {
    // Units per product, over all its lines (sizes and colours).
    const units = new Map<string, number>();
    for (const l of cart.cart?.lines ?? [])
      units.set(l.productId, (units.get(l.productId) ?? 0) + l.quantity);
    return units;
  }, [cart.cart]);
  const actions = useMemo<CardActions>(
    () => ({
      addToCart: (productId, variant) =>
        void change({ kind: "add", productId, quantity: 1, ...variant }),
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
    send(pick(lang, "Check out, please.", "结账"));
    setTab("chat");
  }, [send, lang]);

  return (
    <>
      {/* The "How it works" demonstration drawer (its button is in the top bar). */}
      <HowItWorksDrawer credentials={load.credentials} turns={chat.state.turns} lang={lang} />
      <Workspace
        tab={tab}
        onTab={setTab}
        chat={
          <>
            {bar}
            <ChatPanel
              chat={chat}
              actions={actions}
              agentName={pick(lang, "Shopping assistant", "购物助手")}
              placeholder={pick(lang, "Ask about products or your cart…", "问问商品或您的购物车…")}
              notice={load.notice}
              onShowTimeline={showTimeline}
              onRestart={onRestart}
              book={book}
              empty={<Welcome onPick={chat.send} lang={lang} />}
            />
          </>
        }
        panels={[
          {
            id: "cart",
            label: pick(lang, "Cart", "购物车"),
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
            label: pick(lang, "Timeline", "时间线"),
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

function Welcome({ onPick, lang }: { onPick: (text: string) => void; lang: Lang }) {
  return (
    <div className="welcome" lang={lang}>
      <div className="welcome-mark" aria-hidden="true">
        <Icon name="spark" size={22} />
      </div>
      <h1>{pick(lang, "What are you shopping for?", "您想买点什么？")}</h1>
      <p className="muted">
        {pick(
          lang,
          "Ask in English or 中文. Watch the tool chips: each tool starts the moment its arguments are complete, while the reply is still being written.",
          "用中文或英文提问都可以。留意工具标签：每个工具在参数完整的那一刻就开始运行，回复还在写的时候。",
        )}
      </p>
      <ul className="suggestions" aria-label={pick(lang, "Try one of these", "试试这些")}>
        {SUGGESTIONS[lang].map((s) => (
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
