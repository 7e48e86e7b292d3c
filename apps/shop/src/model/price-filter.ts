/** Price limits a shopper writes ("under 100", "between 50 and 80", "100元以下"). */

/** Price limits in cents: "under 100", "between 50 and 80", "50-80", "100元以下", "50到80之间". */
export function priceFilter(text: string): { maxPriceCents?: number; minPriceCents?: number } {
  const num = "\\$?(\\d+(?:\\.\\d+)?)\\s*(?:dollars|bucks|usd|元|块|美元|刀)?";
  const cents = (s: string) => Math.round(Number(s) * 100);
  const between =
    text.match(new RegExp(`between ${num} and ${num}`)) ??
    text.match(
      new RegExp(
        `(?:from )?${num} ?(?:-|–|to|~|到|至) ?${num}(?!\\s*(?:码|号|双|件|个|units|pairs))`,
      ),
    );
  if (between?.[1] && between[2] && !/size|码/.test(between[0])) {
    const [a, b] = [cents(between[1]), cents(between[2])].sort((x, y) => x - y);
    if (a !== b && Number(between[2]) >= 5) return { minPriceCents: a!, maxPriceCents: b! };
  }
  const out: { maxPriceCents?: number; minPriceCents?: number } = {};
  const under =
    text.match(
      new RegExp(
        `(?:under|below|less than|cheaper than|max(?:imum)?|up to|at most|no more than|<=?|低于|不超过|不到|少于)\\s*${num}`,
      ),
    ) ?? text.match(/(\d+(?:\.\d+)?)\s*(?:元|块|美元|刀)?\s*(?:以下|以内|之内)/);
  const over =
    text.match(
      new RegExp(`(?:over|above|more than|at least|min(?:imum)?|>=?|高于|超过|多于)\\s*${num}`),
    ) ?? text.match(/(\d+(?:\.\d+)?)\s*(?:元|块|美元|刀)?\s*以上/);
  if (under?.[1]) out.maxPriceCents = cents(under[1]);
  if (over?.[1]) out.minPriceCents = cents(over[1]);
  return out;
}
