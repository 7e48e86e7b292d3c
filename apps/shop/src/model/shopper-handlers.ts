/**
 * The shopper script's handlers, one per kind of request: adding a kind means one intent in
 * shopper-intent.ts and one entry here.
 */

import { compare, lookUpProduct, search } from "./browse-handlers.js";
import {
  addItems,
  addShown,
  changeQuantity,
  clearCart,
  keepOnly,
  removeLine,
  replaceLine,
  setQuantity,
  setVariant,
} from "./cart-handlers.js";
import { checkout, checkoutQuestion, pastOrders } from "./order-handlers.js";
import { askAttribute, whichShown } from "./question-handlers.js";
import { call } from "./replies.js";
import type { ShopperHandlers } from "./shopper-handler.js";
import {
  askMerchant,
  askWhatKind,
  catalogOverview,
  declined,
  greet,
  notUnderstood,
  otherLanguage,
  welcome,
} from "./talk-handlers.js";
import { lookUpOnline } from "./web-lookup.js";

/** Every kind of shopper request, what the script does for it and the tools that end it. */
export const SHOPPER_HANDLERS: ShopperHandlers = {
  add: {
    finals: ["add_to_cart", "cart_total"],
    act: (state, intent) => addItems(state, intent.items, intent.total),
  },
  "add-shown": { finals: ["add_to_cart", "cart_total"], act: addShown },
  search: { finals: ["show_products"], act: search },
  compare: { finals: ["compare_products"], act: compare },
  remove: { finals: ["remove_from_cart", "update_cart_item"], act: removeLine },
  "set-quantity": { finals: ["update_cart_item", "remove_from_cart"], act: setQuantity },
  "change-quantity": {
    finals: ["add_to_cart", "update_cart_item", "remove_from_cart"],
    act: changeQuantity,
  },
  "set-variant": { finals: ["update_cart_item"], act: setVariant },
  "clear-cart": { finals: ["clear_cart"], act: clearCart },
  details: { finals: ["get_product"], act: lookUpProduct },
  availability: { finals: ["get_product"], act: lookUpProduct },
  orders: { finals: ["my_orders"], act: pastOrders },
  "keep-only": { finals: ["remove_from_cart"], act: keepOnly },
  replace: { finals: ["add_to_cart"], act: replaceLine },
  attribute: { finals: ["get_product"], act: askAttribute },
  "which-shown": { act: whichShown },
  vague: { act: askWhatKind },
  "catalog-overview": { act: catalogOverview },
  "other-language": { act: otherLanguage },
  "view-cart": { finals: ["view_cart"], act: () => ({ blocks: [call("view_cart", {})] }) },
  total: { finals: ["cart_total"], act: () => ({ blocks: [call("cart_total", {})] }) },
  checkout: { finals: ["checkout"], act: checkout },
  "checkout-question": { act: checkoutQuestion },
  declined: { act: declined },
  "ask-merchant": { finals: ["ask_merchant"], act: askMerchant },
  "web-lookup": { act: lookUpOnline },
  greeting: { act: greet },
  thanks: { act: welcome },
  unknown: { act: notUnderstood },
};
