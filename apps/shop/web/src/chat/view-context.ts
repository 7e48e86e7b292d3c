/**
 * How a reply is shown: in which language (that of the message it answers), with which product
 * names, and whether the developer view is on. Given by each assistant turn to its chips and
 * cards.
 */

import { createContext, useContext } from "react";
import type { Lang } from "../i18n/lang";
import type { ProductBook } from "./product-book";

export interface ChatView {
  lang: Lang;
  book: ProductBook;
  /** Tool names, ids, arguments and timings instead of sentences. */
  developer: boolean;
}

export const ChatViewContext = createContext<ChatView>({
  lang: "en",
  book: new Map(),
  developer: false,
});

export function useChatView(): ChatView {
  return useContext(ChatViewContext);
}
