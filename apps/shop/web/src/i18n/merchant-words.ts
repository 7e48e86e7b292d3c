/**
 * Every string of the merchant's page in English and Chinese: the console's login and welcome,
 * its suggestions, and the merchant cards (stock, changes, orders, sales). Product names, brands,
 * ids and prices stay as they are.
 */

import { categoryName } from "./category-words";
import { discountWords } from "./discount-words";
import type { Lang } from "./lang";

/** The merchant page's words in one language. */
export interface MerchantWords {
  readonly documentTitle: string;
  readonly signOut: string;
  readonly signOutLabel: string;
  readonly switchLanguage: string;
  /** The language button on a phone. */
  readonly switchLanguageShort: string;
  readonly switchLanguageLabel: string;
  readonly consoleTitle: string;
  readonly tokenHelp: (envName: string) => readonly [string, string];
  readonly tokenLabel: string;
  readonly openConsole: string;
  readonly rejected: string;
  readonly opening: string;
  readonly agentName: string;
  readonly placeholder: string;
  readonly welcomeTitle: string;
  readonly welcomeText: string;
  readonly tryThese: string;
  /** The welcome screen's suggestions; each works as written with the scripted model. */
  readonly suggestions: readonly string[];
  readonly timeline: string;
  // Tables
  readonly product: string;
  readonly brand: string;
  readonly stock: string;
  readonly price: string;
  readonly showFewer: string;
  readonly showAll: (n: number) => string;
  readonly noOrders: string;
  readonly order: string;
  readonly placed: string;
  readonly items: string;
  readonly total: string;
  readonly kpis: readonly [string, string, string, string];
  readonly sold: (n: number) => string;
  // Changes
  readonly inStockNow: string;
  readonly adding: string;
  readonly afterRestock: string;
  readonly priceNow: string;
  readonly salePrice: string;
  readonly backTo: string;
  readonly restockCaption: (products: number, how: { quantity?: number; upTo?: number }) => string;
  readonly discountCaption: (category: string, percent: number | undefined, n: number) => string;
  readonly unitsInAll: (units: number) => string;
  readonly unchanged: string;
  readonly field: string;
  readonly before: string;
  readonly after: string;
  readonly fieldName: (field: string) => string;
  readonly category: string;
  readonly off: string;
  readonly products: string;
  readonly noDiscounts: string;
  // Card titles
  readonly inventory: (query: string | undefined) => string;
  readonly lowStock: (threshold: number | undefined) => string;
  readonly inventoryUpdated: string;
  readonly recentOrders: string;
  readonly salesSummary: string;
  readonly restocked: string;
  readonly discountSet: (category: string, percent: number | undefined) => string;
  readonly productEdited: string;
  readonly discounts: string;
  readonly approveChange: string;
}

const EN: MerchantWords = {
  documentTitle: "Merchant console · Trail & Run",
  signOut: "Sign out",
  signOutLabel: "Sign out of the merchant console",
  switchLanguage: "中文",
  switchLanguageShort: "中",
  switchLanguageLabel: "切换到中文",
  consoleTitle: "Merchant console",
  tokenHelp: (env) => [
    "Enter the merchant token (the server prints it at start, or set ",
    `${env}). It is kept for this tab only.`,
  ],
  tokenLabel: "Merchant token",
  openConsole: "Open the console",
  rejected: "That merchant token was not accepted.",
  opening: "Opening the merchant console…",
  agentName: "Merchant assistant",
  placeholder: "Ask about stock, prices, discounts, orders or sales…",
  welcomeTitle: "Merchant assistant",
  welcomeText:
    "Watch stock, restock, edit products, set discounts by category, follow orders and sales.",
  tryThese: "Try one of these",
  suggestions: [
    "what is low on stock? restock it",
    "restock everything under 5 to 20",
    "10% off all jackets",
    "set the price of the Aero Trail Runner to $95",
    "sales summary",
  ],
  timeline: "Timeline",
  product: "Product",
  brand: "Brand",
  stock: "Stock",
  price: "Price",
  showFewer: "Show fewer",
  showAll: (n) => `Show all ${n}`,
  noOrders: "No orders yet.",
  order: "Order",
  placed: "Placed",
  items: "Items",
  total: "Total",
  kpis: ["Orders", "Items sold", "Revenue", "Average order"],
  sold: (n) => `${n} sold`,
  inStockNow: "In stock",
  adding: "Adding",
  afterRestock: "After",
  priceNow: "Price now",
  salePrice: "Sale price",
  backTo: "Back to",
  restockCaption: (n, how) =>
    how.upTo !== undefined
      ? `${n} ${n === 1 ? "product" : "products"} filled up to ${how.upTo} each`
      : `${n} ${n === 1 ? "product" : "products"}, ${how.quantity ?? 0} units each`,
  discountCaption: (category, percent, n) =>
    percent === undefined
      ? `${category}: ${n} ${n === 1 ? "product" : "products"} back to their list price`
      : `${discountWords(percent, "en")} all ${category}: ${n} ${n === 1 ? "product" : "products"}`,
  unitsInAll: (units) => `${units} ${units === 1 ? "unit" : "units"} in all`,
  unchanged: "already there",
  field: "Field",
  before: "Before",
  after: "After",
  fieldName: (field) =>
    field === "name"
      ? "Name"
      : field === "price"
        ? "Price"
        : field === "description"
          ? "Description"
          : field,
  category: "Category",
  off: "Off",
  products: "Products",
  noDiscounts: "No discount is in force.",
  inventory: (query) => (query ? `Inventory · “${query}”` : "Inventory"),
  lowStock: (threshold) =>
    threshold === undefined ? "Low stock" : `Low stock · ${threshold} or fewer`,
  inventoryUpdated: "Inventory updated",
  recentOrders: "Recent orders",
  salesSummary: "Sales summary",
  restocked: "Restocked",
  discountSet: (category, percent) =>
    percent === undefined
      ? `Discount ended · ${category}`
      : `${discountWords(percent, "en")} · ${category}`,
  productEdited: "Product edited",
  discounts: "Discounts in force",
  approveChange: "Confirm this change",
};

const ZH: MerchantWords = {
  documentTitle: "商家后台 · Trail & Run",
  signOut: "退出",
  signOutLabel: "退出商家后台",
  switchLanguage: "English",
  switchLanguageShort: "EN",
  switchLanguageLabel: "Switch to English",
  consoleTitle: "商家后台",
  tokenHelp: (env) => [
    "请输入商家令牌（服务器启动时会打印，或设置 ",
    `${env}）。令牌只保存在这个标签页里。`,
  ],
  tokenLabel: "商家令牌",
  openConsole: "进入后台",
  rejected: "这个商家令牌无效。",
  opening: "正在打开商家后台…",
  agentName: "商家助手",
  placeholder: "问问库存、价格、折扣、订单或销售…",
  welcomeTitle: "商家助手",
  welcomeText: "查看库存、补货、修改商品、按品类设置折扣，跟进订单和销售。",
  tryThese: "试试这些",
  suggestions: [
    "库存不足的商品有哪些？补货",
    "把库存低于5的商品都补到20",
    "把夹克打九折",
    "把 Aero Trail Runner 的价格改成 95 美元",
    "销售汇总",
  ],
  timeline: "时间线",
  product: "商品",
  brand: "品牌",
  stock: "库存",
  price: "价格",
  showFewer: "收起",
  showAll: (n) => `显示全部 ${n} 件`,
  noOrders: "还没有订单。",
  order: "订单",
  placed: "下单时间",
  items: "件数",
  total: "合计",
  kpis: ["订单数", "售出件数", "销售额", "平均订单金额"],
  sold: (n) => `售出 ${n} 件`,
  inStockNow: "现有库存",
  adding: "补货",
  afterRestock: "补货后",
  priceNow: "现价",
  salePrice: "折后价",
  backTo: "恢复为",
  restockCaption: (n, how) =>
    how.upTo !== undefined
      ? `${n} 件商品，各补到 ${how.upTo} 件`
      : `${n} 件商品，各补 ${how.quantity ?? 0} 件`,
  discountCaption: (category, percent, n) =>
    percent === undefined
      ? `${categoryName(category, "zh")}：${n} 件商品恢复原价`
      : `${categoryName(category, "zh")}全部${discountWords(percent, "zh")}：${n} 件商品`,
  unitsInAll: (units) => `共 ${units} 件`,
  unchanged: "已达到",
  field: "项目",
  before: "修改前",
  after: "修改后",
  fieldName: (field) =>
    field === "name"
      ? "名称"
      : field === "price"
        ? "价格"
        : field === "description"
          ? "描述"
          : field,
  category: "品类",
  off: "折扣",
  products: "商品数",
  noDiscounts: "目前没有折扣。",
  inventory: (query) => (query ? `库存 · “${query}”` : "库存"),
  lowStock: (threshold) =>
    threshold === undefined ? "库存不足" : `库存不足 · ${threshold} 件及以下`,
  inventoryUpdated: "库存已更新",
  recentOrders: "最近的订单",
  salesSummary: "销售汇总",
  restocked: "已补货",
  discountSet: (category, percent) =>
    percent === undefined
      ? `折扣已结束 · ${categoryName(category, "zh")}`
      : `${discountWords(percent, "zh")} · ${categoryName(category, "zh")}`,
  productEdited: "商品已修改",
  discounts: "当前折扣",
  approveChange: "确认这项修改",
};

/** The merchant page's words in `lang`. */
export function merchantWords(lang: Lang): MerchantWords {
  return lang === "zh" ? ZH : EN;
}
