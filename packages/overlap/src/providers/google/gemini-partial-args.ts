/**
 * Streamed function-call arguments of Vertex AI (`functionCallingConfig.streamFunctionCallArguments`)
 * written out as JSON text, piece by piece, so the neutral stream can carry them as ordinary
 * `input_json_delta`s (previews while the model writes).
 *
 * Vertex sends a call's arguments as `partialArgs`: each one a JSON Path (RFC 9535, e.g.
 * `$.location`, `$.items[0].sku`, `$['a b']`) and one scalar (`stringValue`, `numberValue`,
 * `boolValue`, `nullValue`). A string may come in several pieces for the same path: a piece with
 * `willContinue: true` is followed by more of the same string. An `args` object may also come
 * along; its leaves are written the same way.
 *
 * The text written so far is always a prefix of the final JSON text: containers are opened as
 * paths enter them and closed as paths leave them (or at {@link JsonPathWriter.finish}). That
 * holds when the paths arrive in document order, which is how a model writes its arguments.
 * A path that would reopen a finished value or container, or an array index that skips ahead,
 * cannot be written as a prefix: {@link JsonPathWriter.write} throws {@link PartialArgsOrderError}
 * and the caller reports the call as broken rather than guess.
 */

/** A path segment: an object member name or an array index. */
type Segment = string | number;

/** One open container. */
interface Frame {
  kind: "object" | "array";
  /** Members written so far. */
  count: number;
  /** Member names written so far (objects). */
  readonly names: Set<string>;
}

/** A value written at a path: a scalar, or a whole JSON value (from an `args` object). */
export type PartialValue = string | number | boolean | null | readonly unknown[] | object;

/** One `partialArgs` entry as Vertex sends it. */
export interface PartialArg {
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  willContinue?: boolean;
}

/** The paths arrived in an order that cannot be written as a prefix of the final JSON. */
export class PartialArgsOrderError extends Error {
  override readonly name = "PartialArgsOrderError";
}

/** Writes one call's streamed arguments as JSON text (see the module comment). */
export class JsonPathWriter {
  /** Open containers, the root object first; empty before the first write. */
  readonly #stack: Frame[] = [];
  /** The path of each open container below the root, as segments. */
  readonly #path: Segment[] = [];
  /** The path (joined) of a string still open because its last piece said `willContinue`. */
  #openString: string | undefined;
  #finished = false;
  #text = "";

  /** The JSON text written so far. */
  get text(): string {
    return this.#text;
  }

  /** Writes every entry of a `partialArgs` list; returns the text added. */
  writePartialArgs(args: readonly PartialArg[]): string {
    let out = "";
    for (const arg of args) {
      const value = scalarOf(arg);
      if (value === undefined) continue;
      out += this.write(arg.jsonPath ?? "$", value, arg.willContinue === true);
    }
    return out;
  }

  /** Writes the leaves of an `args` object (each at its own path); returns the text added. */
  writeArgs(args: Readonly<Record<string, unknown>>): string {
    let out = "";
    const visit = (path: Segment[], value: unknown): void => {
      if (Array.isArray(value) && value.length > 0) {
        for (const [i, item] of value.entries()) visit([...path, i], item);
      } else if (isObject(value) && Object.keys(value).length > 0) {
        for (const [name, item] of Object.entries(value)) visit([...path, name], item);
      } else if (value !== undefined) {
        out += this.#writeAt(path, value as PartialValue, false);
      }
    };
    for (const [name, value] of Object.entries(args)) visit([name], value);
    return out;
  }

  /**
   * Writes `value` at `jsonPath`. A string with `continues` stays open: the next write to the
   * same path appends to it. Returns the text added.
   * @throws PartialArgsOrderError when the path cannot be written in order, or is not a path.
   */
  write(jsonPath: string, value: PartialValue, continues = false): string {
    return this.#writeAt(parseJsonPath(jsonPath), value, continues);
  }

  /** Closes everything still open; returns the text added. Idempotent. */
  finish(): string {
    if (this.#finished) return "";
    this.#finished = true;
    let out = this.#closeString();
    if (this.#stack.length === 0) out += "{}";
    while (this.#stack.length > 0) out += this.#pop();
    this.#text += out;
    return out;
  }

  #writeAt(path: readonly Segment[], value: PartialValue, continues: boolean): string {
    if (this.#finished) throw new PartialArgsOrderError("the arguments were already complete");
    if (path.length === 0) {
      throw new PartialArgsOrderError("a value for the whole arguments object ($)");
    }
    if (typeof path[0] !== "string") {
      throw new PartialArgsOrderError("the arguments must be an object, not an array");
    }
    const key = joinPath(path);
    let out = "";
    if (this.#openString !== undefined) {
      if (this.#openString === key && typeof value === "string") {
        // The next piece of the same string.
        out = escapeStringPiece(value);
        if (!continues) out += `"`;
        this.#openString = continues ? key : undefined;
        this.#text += out;
        return out;
      }
      out += this.#closeString();
    }
    if (this.#stack.length === 0) {
      out += "{";
      this.#stack.push(newFrame("object"));
    }
    // Leave the containers the new path is not inside.
    const parent = path.slice(0, -1);
    let common = 0;
    while (
      common < this.#path.length &&
      common < parent.length &&
      this.#path[common] === parent[common]
    ) {
      common++;
    }
    while (this.#path.length > common) out += this.#pop();
    // Enter the containers it is inside, then write the value as their next member.
    for (let depth = common; depth < parent.length; depth++) {
      out += this.#member(path[depth]!, key);
      const next = path[depth + 1]!;
      const kind = typeof next === "number" ? "array" : "object";
      out += kind === "array" ? "[" : "{";
      this.#stack.push(newFrame(kind));
      this.#path.push(path[depth]!);
    }
    out += this.#member(path.at(-1)!, key);
    if (typeof value === "string") {
      out += `"${escapeStringPiece(value)}`;
      if (continues) this.#openString = key;
      else out += `"`;
    } else {
      out += JSON.stringify(value) ?? "null";
    }
    this.#text += out;
    return out;
  }

  /** The separator and name (or index check) of the next member of the innermost container. */
  #member(segment: Segment, key: string): string {
    const frame = this.#stack.at(-1)!;
    if (frame.kind === "object") {
      if (typeof segment !== "string") {
        throw new PartialArgsOrderError(`an array index inside an object at ${key}`);
      }
      if (frame.names.has(segment)) {
        throw new PartialArgsOrderError(`${key} continues a value that was already complete`);
      }
      frame.names.add(segment);
      return `${frame.count++ > 0 ? "," : ""}${JSON.stringify(segment)}:`;
    }
    if (segment !== frame.count) {
      throw new PartialArgsOrderError(
        `${key} is not the next element of its array (expected index ${frame.count})`,
      );
    }
    return frame.count++ > 0 ? "," : "";
  }

  #pop(): string {
    const frame = this.#stack.pop()!;
    this.#path.pop();
    return frame.kind === "array" ? "]" : "}";
  }

  #closeString(): string {
    if (this.#openString === undefined) return "";
    this.#openString = undefined;
    return `"`;
  }
}

function newFrame(kind: Frame["kind"]): Frame {
  return { kind, count: 0, names: new Set() };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value of one partial arg, or undefined when it carries none. */
function scalarOf(arg: PartialArg): PartialValue | undefined {
  if (typeof arg.stringValue === "string") return arg.stringValue;
  if (typeof arg.numberValue === "number") return arg.numberValue;
  if (typeof arg.boolValue === "boolean") return arg.boolValue;
  if ("nullValue" in arg) return null;
  return undefined;
}

/** A string piece as JSON string content (without quotes). */
function escapeStringPiece(piece: string): string {
  return JSON.stringify(piece).slice(1, -1);
}

function joinPath(path: readonly Segment[]): string {
  return `$${path.map((s) => (typeof s === "number" ? `[${s}]` : `[${JSON.stringify(s)}]`)).join("")}`;
}

/** RFC 9535 escapes inside a quoted member name (others stand for themselves: `\\'`, `\\"`...). */
const ESCAPES: Readonly<Record<string, string>> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Parses the JSON Path forms Vertex uses: `$`, then `.name`, `['name']` / `["name"]` and `[0]`.
 * @throws PartialArgsOrderError for anything else.
 */
export function parseJsonPath(jsonPath: string): Segment[] {
  if (!jsonPath.startsWith("$")) throw new PartialArgsOrderError(`not a JSON Path: ${jsonPath}`);
  const segments: Segment[] = [];
  let i = 1;
  while (i < jsonPath.length) {
    const c = jsonPath.charAt(i);
    if (c === ".") {
      let end = i + 1;
      while (end < jsonPath.length && jsonPath.charAt(end) !== "." && jsonPath.charAt(end) !== "[")
        end++;
      if (end === i + 1) throw new PartialArgsOrderError(`not a JSON Path: ${jsonPath}`);
      segments.push(jsonPath.slice(i + 1, end));
      i = end;
    } else if (c === "[") {
      const quote = jsonPath.charAt(i + 1);
      if (quote === "'" || quote === '"') {
        let name = "";
        let j = i + 2;
        for (; j < jsonPath.length && jsonPath.charAt(j) !== quote; j++) {
          if (jsonPath.charAt(j) !== "\\") {
            name += jsonPath.charAt(j);
            continue;
          }
          const escaped = jsonPath.charAt(++j);
          if (escaped === "u") {
            const code = Number.parseInt(jsonPath.slice(j + 1, j + 5), 16);
            if (!/^[0-9a-fA-F]{4}$/.test(jsonPath.slice(j + 1, j + 5))) {
              throw new PartialArgsOrderError(`not a JSON Path: ${jsonPath}`);
            }
            name += String.fromCharCode(code);
            j += 4;
          } else {
            name += ESCAPES[escaped] ?? escaped;
          }
        }
        if (jsonPath.charAt(j + 1) !== "]") {
          throw new PartialArgsOrderError(`not a JSON Path: ${jsonPath}`);
        }
        segments.push(name);
        i = j + 2;
      } else {
        const end = jsonPath.indexOf("]", i);
        const index = Number(jsonPath.slice(i + 1, end));
        if (end < 0 || !Number.isSafeInteger(index) || index < 0) {
          throw new PartialArgsOrderError(`not a JSON Path: ${jsonPath}`);
        }
        segments.push(index);
        i = end + 1;
      }
    } else {
      throw new PartialArgsOrderError(`not a JSON Path: ${jsonPath}`);
    }
  }
  return segments;
}
