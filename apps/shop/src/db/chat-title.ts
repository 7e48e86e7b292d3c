/**
 * The title the list of chats shows for a chat: the shopper's first words, read from the first
 * stored message's JSON content (a string, or content blocks of which the text ones count).
 */

/** The longest title, in characters; longer first messages are cut with an ellipsis. */
const MAX_TITLE_CHARS = 120;

/** A chat's title from its first stored message's JSON content; "" when it has none. */
export function chatTitle(content: string | null | undefined): string {
  if (!content) return "";
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return "";
  }
  const text =
    typeof value === "string"
      ? value
      : Array.isArray(value)
        ? value
            .flatMap((b: unknown) =>
              typeof b === "object" &&
              b !== null &&
              (b as { type?: unknown }).type === "text" &&
              typeof (b as { text?: unknown }).text === "string"
                ? [(b as { text: string }).text]
                : [],
            )
            .join(" ")
        : "";
  const line = text.replace(/\s+/g, " ").trim();
  const chars = [...line];
  return chars.length > MAX_TITLE_CHARS ? `${chars.slice(0, MAX_TITLE_CHARS - 1).join("")}…` : line;
}
