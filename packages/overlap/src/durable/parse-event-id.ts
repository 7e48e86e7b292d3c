/**
 * Event ids of durable turn logs: `<turnId>:<seq>`, as `TurnEventLog` numbers them (a turn id may
 * itself hold colons: the seq is after the last one).
 */

/** The turn and seq an event id names, if it is one. */
export function parseEventId(
  id: string | null | undefined,
): { turnId: string; seq: number } | undefined {
  if (!id) return undefined;
  const at = id.lastIndexOf(":");
  if (at <= 0) return undefined;
  const seq = Number(id.slice(at + 1));
  if (!Number.isInteger(seq) || seq < 0) return undefined;
  return { turnId: id.slice(0, at), seq };
}
