/**
 * What one run of the quick start printed (a turn through each entry point), reduced to what
 * must be the same on every runtime. The events are the same on every runtime; where their pieces fall is not: how the body arrives
 * in network reads decides how text is split into deltas and how many argument previews a call
 * shows, a tool's completion lands between stream events wherever its promise settles, and every
 * clock reading and id differs. So:
 * - consecutive text (or thinking) deltas of one block are joined into one;
 * - `tool-input-preview` events are left out (their number follows the reads);
 * - `tool-status` events are taken out of the sequence and kept per call, in order;
 * - call ids are renamed `call-1`, `call-2`... in the order they first appear;
 * - `atMs` and every number of `timings` except a block's `index` become "ms".
 * Everything else (order, names, inputs, results, stop reasons, usage) is compared as printed.
 */

/** One turn's output in comparable form. */
export interface ComparableTurn {
  /** The events in order, reduced as described above. */
  events: unknown[];
  /** Each call's statuses in the order they came (`running`, `done`...), by renamed id. */
  statuses: Record<string, string[]>;
  /** The turn's stop reason, printed last. */
  stopReason: string | undefined;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * Reduces the JSON lines a quick start run printed: for each turn, a `{"turn": name}` line, its
 * events, then `{"stopReason": ...}`. Keyed by the turns' names, in the order they ran.
 */
export function comparableRun(printed: string): Record<string, ComparableTurn> {
  const turns: Record<string, ComparableTurn> = {};
  let current: ComparableTurn | undefined;
  let rename: (id: string) => string = (id) => id;
  for (const line of printed.split("\n")) {
    if (line.trim() === "") continue;
    const parsed = JSON.parse(line) as JsonObject;
    if (typeof parsed.turn === "string") {
      current = { events: [], statuses: {}, stopReason: undefined };
      turns[parsed.turn] = current;
      rename = renamer();
      continue;
    }
    if (!current) throw new Error(`An event before the first turn's name: ${line}`);
    if (typeof parsed.type !== "string") {
      current.stopReason = String(parsed.stopReason);
      continue;
    }
    const event = normalised(parsed, rename, false) as JsonObject;
    if (event.type === "tool-input-preview") continue;
    if (event.type === "tool-status") {
      const id = String(event.callId);
      current.statuses[id] ??= [];
      current.statuses[id].push(String(event.status));
      continue;
    }
    const previous = current.events.at(-1) as JsonObject | undefined;
    const joined = joinedDelta(previous, event);
    if (joined) current.events[current.events.length - 1] = joined;
    else current.events.push(event);
  }
  return turns;
}

/** Names call ids `call-1`, `call-2`... in the order it is first asked about each. */
function renamer(): (id: string) => string {
  const ids = new Map<string, string>();
  return (id) => {
    let renamed = ids.get(id);
    if (renamed === undefined) {
      renamed = `call-${ids.size + 1}`;
      ids.set(id, renamed);
    }
    return renamed;
  };
}

/** `previous` and `next` as one delta, when both are deltas of the same kind and block. */
function joinedDelta(previous: JsonObject | undefined, next: JsonObject): JsonObject | undefined {
  if (!previous || previous.type !== next.type) return undefined;
  if (previous.round !== next.round || previous.index !== next.index) return undefined;
  const field =
    next.type === "text-delta" ? "text" : next.type === "thinking-delta" ? "thinking" : undefined;
  if (!field) return undefined;
  return { ...previous, [field]: `${previous[field]}${next[field]}` };
}

/** `value` with call ids renamed and clock readings replaced (`inTimings`: under `timings`). */
function normalised(value: Json, rename: (id: string) => string, inTimings: boolean): Json {
  if (Array.isArray(value)) return value.map((item) => normalised(item, rename, inTimings));
  if (value === null || typeof value !== "object") return value;
  const out: JsonObject = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === "callId" && typeof field === "string") out[key] = rename(field);
    else if (key === "atMs" || (inTimings && typeof field === "number" && key !== "index")) {
      out[key] = "ms";
    } else out[key] = normalised(field, rename, inTimings || key === "timings");
  }
  return out;
}
