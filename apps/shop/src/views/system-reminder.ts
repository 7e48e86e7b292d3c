/**
 * Notes the shop puts in front of a shopper's message for the model, not the shopper's words:
 * wrapped in `<system-reminder>` tags (the convention Claude's own clients use), so every reader
 * of the conversation (the scripted model, the page's history) tells them from the words after.
 * One note today: the cart changed outside the chat (in another chat of the shopper, or from the
 * cart panel), with the cart as it is now, so the model's cart knowledge comes from the cart.
 */

const OPEN = "<system-reminder>";
const CLOSE = "</system-reminder>";
const CART_CHANGED =
  "The cart changed outside this chat (in another chat or the cart panel). Now: ";

/** `text` with `note` in front of it as a system reminder. */
export function withReminder(note: string, text: string): string {
  return `${OPEN}${note}${CLOSE}\n${text}`;
}

/** The reminders at the start of `text` and the words after them. */
export function splitReminders(text: string): { notes: string[]; words: string } {
  const notes: string[] = [];
  let rest = text.trimStart();
  while (rest.startsWith(OPEN)) {
    const end = rest.indexOf(CLOSE);
    // An unclosed tag is all note: nothing after it is the user's.
    if (end < 0) return { notes: [...notes, rest.slice(OPEN.length)], words: "" };
    notes.push(rest.slice(OPEN.length, end));
    rest = rest.slice(end + CLOSE.length).trimStart();
  }
  return { notes, words: rest };
}

/** The note saying the cart changed, with its summary (`cartSummary` of the cart now). */
export function cartChangedNote(summary: string): string {
  return `${CART_CHANGED}${summary}`;
}

/** The cart summary a {@link cartChangedNote} carries, or `undefined` for another note. */
export function cartOfNote(note: string): string | undefined {
  return note.startsWith(CART_CHANGED) ? note.slice(CART_CHANGED.length) : undefined;
}
