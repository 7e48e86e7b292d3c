/**
 * Money as integer cents. Every price, line total and limit in the shop is a safe integer number
 * of cents, so sums are exact; conversion from the model's decimal dollars happens once, at the
 * edge, with {@link dollarsToCents}.
 */

/** True for a non-negative safe integer: a valid amount of cents. */
export function isCents(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** Formats cents as US dollars with thousands separators: `123450` → `"$1,234.50"`. */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(cents));
  const dollars = Math.trunc(abs / 100);
  const rest = abs % 100;
  // Grouping by hand keeps the output independent of the runtime's locale data.
  const grouped = String(dollars).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}$${grouped}.${String(rest).padStart(2, "0")}`;
}

/**
 * Converts a decimal dollar amount (as a model or a form sends it) to cents, or `undefined` when
 * it is negative, not finite or too large. Rounds to the nearest cent.
 */
export function dollarsToCents(amount: number): number | undefined {
  if (!Number.isFinite(amount) || amount < 0) return undefined;
  // toFixed first: 1.005 * 100 is 100.49999999999999 in binary floating point, and a person who
  // typed 1.005 means 100.5 cents, which rounds to 101.
  const cents = Math.round(Number((amount * 100).toFixed(6)));
  return Number.isSafeInteger(cents) ? cents : undefined;
}
