/**
 * Edits of the cart said as shoppers say them: keeping one line and removing the rest ("only
 * keep the jacket", "别的都删掉，只留夹克") and a correction of what was just added ("wait, not
 * that one, the headlamp in silver", "不是这个，要Vertex头灯").
 */

import { stripFiller } from "./intent-words.js";
import { mentionIn, type NamedItem, namedItems, type Ref } from "./read-mention.js";

/** "only keep the jacket": the line to keep, every other one to remove. */
export function readKeepOnly(
  text: string,
): { kind: "keep-only"; query: string; ref?: Ref } | undefined {
  const en = text.match(
    /\b(?:only keep|keep only|just keep|keep just)(?: the| my)? (.+?)(?:,? (?:and|then)? ?(?:remove|delete|get rid of|drop|ditch|take out|lose) (?:the rest|everything else|all the rest|the others|all else|other (?:stuff|things|items)).*)?$|\b(?:remove|delete|get rid of|drop|take out|clear) (?:everything|all|all of it|all items|all the items|the rest) (?:but|except(?: for)?|apart from|other than)(?: the| my)? (.+)$|\bjust the (.+?),? (?:remove|delete|get rid of) the rest/,
  );
  const zh = text.match(
    /只(?:留|保留|要|剩)(?:下)?(.+?)(?:[，,。]|$)|除了(.+?)(?:以外|之外)?(?:[，,])?(?:其他|别的|其余)?(?:的)?都(?:删|不要|去掉|移除)/,
  );
  const phrase = en ? (en[1] ?? en[2] ?? en[3]) : zh ? (zh[1] ?? zh[2]) : undefined;
  if (phrase === undefined) return undefined;
  const target = mentionIn(
    phrase.replace(/\b(please|pls|in (my|the) (cart|basket))\b|吧|就行|就好/g, " "),
  );
  if (target.query === "" && target.ref === undefined) return undefined;
  return { kind: "keep-only", ...target };
}

/**
 * "wait, not that one, the vertex headlamp in silver": the product just added, swapped for the
 * one named. Undefined when the message is no such correction (or names no other product: "sorry,
 * I meant white" changes the line's colour, see the cart change reader).
 */
export function readCorrection(text: string): { kind: "replace"; item: NamedItem } | undefined {
  const m =
    text.match(
      /^(?:(?:wait|sorry|oops|no|nope|actually|hmm|hold on|my bad)[,!. ]+)*(?:not (?:that|this) one|not that|wrong one|that'?s the wrong one)[,!.;: ]+(?:i (?:meant|mean|wanted)|it should be|give me|i want)?[ ,]*(.+)$/,
    ) ?? text.match(/^(?:不是|不对)(?:这个|这款|那个|那款)?[，, ]*(?:是|要|换成|我要的是)(.+)$/);
  if (!m?.[1]) return undefined;
  const [item, ...more] = namedItems(m[1]);
  if (!item || more.length > 0 || item.query === "" || stripFiller(item.query) === "")
    return undefined;
  return { kind: "replace", item };
}
