/**
 * The checks defineTool and defineJsonSchemaTool run on a definition before anything else, so a
 * mistake fails where the tool is defined, with a sentence that names the tool and says what to
 * do, instead of as an obscure error deep inside zod or as a tool whose every call fails.
 * Every failure is an `OverlapError` with code `invalid_tool_definition`.
 */

import { OverlapError } from "../errors.js";

/**
 * The rule every model API this runtime talks to accepts: Claude and Bedrock allow
 * `^[a-zA-Z0-9_-]{1,64}$`, OpenAI the same set up to 64 characters, Gemini requires the first
 * character to be a letter or an underscore.
 */
export const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

const KINDS = ["handler", "display", "delegate"] as const;
const DISPATCHES = ["eager", "deferred"] as const;

/** Throws the `invalid_tool_definition` error with this sentence. */
export function invalidDefinition(message: string): never {
  throw new OverlapError("invalid_tool_definition", message);
}

/** `Tool "name"`, or a description of the name when it is not a usable string. */
export function toolLabel(name: unknown): string {
  return typeof name === "string" && name !== "" ? `Tool "${name}"` : "A tool without a name";
}

/** A short description of any value, for the end of a sentence ("got ..."). */
export function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (isZodSchema(value)) return describeZod(value);
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Checks what every tool definition has besides its input schema: the definition itself, its
 * name, description, kind, dispatch policy, timeout and `run`. `caller` names the function the
 * definition was given to.
 */
export function checkToolBasics(config: unknown, caller: string): void {
  if (typeof config !== "object" || config === null) {
    invalidDefinition(
      `${caller} needs a definition object such as { name, description, input, run }, got ${describeValue(config)}.`,
    );
  }
  const { name, description, kind, dispatch, timeoutMs, run } = config as Record<string, unknown>;
  if (typeof name !== "string" || name === "") {
    invalidDefinition(
      `A tool needs a name: give it name: "..." (1 to 64 letters, digits, _ or -, starting with a letter or _), got ${describeValue(name)}.`,
    );
  }
  const label = toolLabel(name);
  if (!TOOL_NAME.test(name)) {
    invalidDefinition(
      `${label}: its name must be 1 to 64 letters, digits, _ or -, starting with a letter or _ (the names Claude, OpenAI, Gemini and Bedrock all accept); rename it, for example to "${suggestedName(name)}".`,
    );
  }
  if (typeof description !== "string") {
    invalidDefinition(
      `${label}: its description must be a string (a sentence the model reads to decide when to call the tool), got ${describeValue(description)}.`,
    );
  }
  if (kind !== undefined && !KINDS.includes(kind as (typeof KINDS)[number])) {
    invalidDefinition(
      `${label}: kind must be "handler", "display" or "delegate" (or left out for "handler"), got ${describeValue(kind)}.`,
    );
  }
  if (dispatch !== undefined && !DISPATCHES.includes(dispatch as (typeof DISPATCHES)[number])) {
    invalidDefinition(
      `${label}: dispatch must be "eager" (starts as soon as its arguments are complete, the default) or "deferred" (starts once the model's message ended), got ${describeValue(dispatch)}.`,
    );
  }
  if (kind === "display" && dispatch === "deferred") {
    // Display tools have no side effects; deferring them only delays the UI.
    invalidDefinition(
      `${label}: a display tool cannot be deferred (it has no side effects, deferring it only delays the UI); remove dispatch: "deferred", or make it a handler tool.`,
    );
  }
  if (
    timeoutMs !== undefined &&
    (typeof timeoutMs !== "number" || Number.isNaN(timeoutMs) || timeoutMs <= 0)
  ) {
    invalidDefinition(
      `${label}: timeoutMs must be a positive number of milliseconds (Infinity for no limit, or left out for the executor's default), got ${describeValue(timeoutMs)}.`,
    );
  }
  if (run === undefined) {
    invalidDefinition(
      `${label}: it has no run function; add run: (input, ctx) => ..., returning the text (or { data }) the model reads.`,
    );
  }
  if (typeof run !== "function") {
    invalidDefinition(
      `${label}: run must be a function (input, ctx) => ..., got ${describeValue(run)}.`,
    );
  }
}

/** A name close to `name` that passes {@link TOOL_NAME}. */
function suggestedName(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_");
  return (/^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`).slice(0, 64);
}

// --- zod schemas -------------------------------------------------------------------------------

interface ZodLike {
  _zod: { def: { type: string } };
}

/** A schema's definition, whose fields depend on its type (`shape`, `element`, `innerType`...). */
function defOf(schema: ZodLike): { type: string } & Record<string, unknown> {
  return schema._zod.def as { type: string } & Record<string, unknown>;
}

/** True for a zod 4 schema (zod 3 schemas have no `_zod`). */
export function isZodSchema(value: unknown): value is ZodLike {
  if (typeof value !== "object" || value === null || !("_zod" in value)) return false;
  const internals = (value as { _zod: unknown })._zod;
  return (
    typeof internals === "object" &&
    internals !== null &&
    typeof (internals as { def?: { type?: unknown } }).def?.type === "string"
  );
}

const CONTAINERS: Readonly<Record<string, string>> = {
  object: "z.object({...})",
  array: "z.array(...)",
  record: "z.record(...)",
  tuple: "z.tuple([...])",
  union: "z.union([...])",
  intersection: "z.intersection(...)",
  map: "z.map(...)",
  set: "z.set(...)",
  enum: "z.enum([...])",
  literal: "z.literal(...)",
  lazy: "z.lazy(...)",
  promise: "z.promise(...)",
  template_literal: "z.templateLiteral([...])",
};

const WRAPPERS: Readonly<Record<string, string>> = {
  optional: ".optional()",
  nullable: ".nullable()",
  default: ".default(...)",
  prefault: ".prefault(...)",
  catch: ".catch(...)",
  readonly: ".readonly()",
  nonoptional: ".nonoptional()",
};

/** How a zod schema is written, roughly: `z.string()`, `z.array(...)`, `z.date().optional()`. */
export function describeZod(schema: ZodLike): string {
  const def = defOf(schema);
  const wrapper = WRAPPERS[def.type];
  if (wrapper && isZodSchema(def.innerType)) return describeZod(def.innerType) + wrapper;
  if (def.type === "pipe" && isZodSchema(def.in) && isZodSchema(def.out)) {
    const inner = def.in._zod.def.type === "transform" ? "z.preprocess(...)" : describeZod(def.in);
    return def.out._zod.def.type === "transform" ? `${inner}.transform(...)` : `${inner}.pipe(...)`;
  }
  if (def.coerce === true) return `z.coerce.${def.type}()`;
  return CONTAINERS[def.type] ?? `z.${def.type}()`;
}

/** True when the schema is an object, or an object piped into something (`.transform(...)`). */
export function isObjectInput(schema: ZodLike): boolean {
  const def = defOf(schema);
  if (def.type === "object") return true;
  return def.type === "pipe" && isZodSchema(def.in) && def.in._zod.def.type === "object";
}

/** What to write instead of a type JSON cannot carry. */
const INSTEAD: Readonly<Record<string, string>> = {
  date: "use z.iso.datetime() or z.iso.date() (ISO text), or z.coerce.date() if run needs a Date",
  bigint: "use z.int() (a number) or z.string(), or z.coerce.bigint() if run needs a bigint",
  map: "use z.record(z.string(), ...) or an array of objects",
  set: "use z.array(...)",
  symbol: "use z.string() or z.enum([...])",
  function: "a model only sends data; pass functions to run through the executor's context",
  nan: "use z.number()",
  file: "use z.string() (a URL, or base64 text)",
  undefined: "make the field optional (.optional()) or remove it",
  void: "make the field optional (.optional()) or remove it",
};

interface Unrepresentable {
  path: string;
  schema: ZodLike;
}

/**
 * The first field (at any depth) of a zod schema whose type JSON cannot carry: the model sends
 * JSON, so such a field fails every call. Only the input side counts: a `.transform()` or a
 * `z.preprocess()` may produce a Date, a required field may not be one.
 */
export function findUnrepresentable(schema: ZodLike): Unrepresentable | undefined {
  return walk(schema, "", false, new Set());
}

function walk(
  schema: ZodLike,
  path: string,
  optional: boolean,
  seen: Set<ZodLike>,
): Unrepresentable | undefined {
  if (seen.has(schema)) return undefined;
  seen.add(schema);
  const def = defOf(schema);
  const child = (value: unknown, at: string, isOptional: boolean) =>
    isZodSchema(value) ? walk(value, at, isOptional, seen) : undefined;
  const field = (key: string) => (path === "" ? key : `${path}.${key}`);
  switch (def.type) {
    case "date":
    case "bigint":
      return def.coerce === true ? undefined : { path, schema };
    case "map":
    case "set":
    case "symbol":
    case "function":
    case "nan":
    case "file":
      return { path, schema };
    case "undefined":
    case "void":
      return optional ? undefined : { path, schema };
    case "object": {
      const shape = (def.shape ?? {}) as Record<string, unknown>;
      for (const [key, value] of Object.entries(shape)) {
        const found = child(value, field(key), false);
        if (found) return found;
      }
      return child(def.catchall, field("*"), false);
    }
    case "array":
      return child(def.element, `${path}[]`, false);
    case "tuple": {
      const items = (def.items ?? []) as unknown[];
      for (const [index, item] of items.entries()) {
        const found = child(item, `${path}[${index}]`, false);
        if (found) return found;
      }
      return child(def.rest, `${path}[]`, false);
    }
    case "record":
      return child(def.valueType, `${path}[key]`, false);
    case "union": {
      // `z.union([z.string(), z.undefined()])` is an optional string: undefined may stay.
      for (const option of (def.options ?? []) as unknown[]) {
        const found = child(option, path, true);
        if (found) return found;
      }
      return undefined;
    }
    case "intersection":
      return child(def.left, path, optional) ?? child(def.right, path, optional);
    case "optional":
    case "default":
    case "prefault":
    case "catch":
      return child(def.innerType, path, true);
    case "nonoptional":
      return child(def.innerType, path, false);
    case "nullable":
    case "readonly":
    case "promise":
    case "success":
      return child(def.innerType, path, optional);
    case "pipe":
      return child(def.in, path, optional);
    case "lazy":
      return typeof def.getter === "function" ? child(def.getter(), path, optional) : undefined;
    default:
      return undefined;
  }
}

/** The sentence for a field JSON cannot carry. */
export function unrepresentableMessage(label: string, found: Unrepresentable): string {
  const where = found.path === "" ? "its input" : `its input field "${found.path}"`;
  const type = found.schema._zod.def.type;
  return `${label}: ${where} is ${describeZod(found.schema)}, which JSON cannot carry (the model sends JSON, so every call would fail); ${INSTEAD[type] ?? "use a JSON type"}.`;
}

/** Checks a zod tool's `input`: a zod 4 object schema whose every field JSON can carry. */
export function checkZodInput(config: Readonly<Record<string, unknown>>): void {
  const label = toolLabel(config.name);
  const { input } = config;
  if (input === undefined) {
    if (config.inputSchema !== undefined) {
      invalidDefinition(
        `${label}: defineTool takes a zod schema as input; for a JSON Schema (inputSchema) use defineJsonSchemaTool.`,
      );
    }
    invalidDefinition(
      `${label}: it has no input schema; add input: z.object({...}) (z.object({}) for a tool without arguments).`,
    );
  }
  if (!isZodSchema(input)) {
    invalidDefinition(`${label}: ${notZodInput(input)}`);
  }
  if (!isObjectInput(input)) {
    invalidDefinition(
      `${label}: its input must be a zod object schema (z.object({...})), got ${describeZod(input)}; put the value in a field, for example z.object({ value: ${describeZod(input)} }).`,
    );
  }
  const found = findUnrepresentable(input);
  if (found) invalidDefinition(unrepresentableMessage(label, found));
}

function notZodInput(input: unknown): string {
  if (typeof input === "object" && input !== null && !Array.isArray(input)) {
    const values = Object.values(input);
    if (values.length > 0 && values.every(isZodSchema)) {
      return "its input is a plain object of fields; wrap them in z.object({...}).";
    }
    if ("_def" in input) {
      return 'its input is a zod 3 schema; overlap-runtime needs zod 4 (install zod 4, or import { z } from "zod/v4").';
    }
    if ("type" in input || "properties" in input) {
      return "its input looks like a JSON Schema; defineTool takes a zod schema (z.object({...})), use defineJsonSchemaTool({ inputSchema }) for a JSON Schema.";
    }
  }
  return `its input must be a zod object schema (z.object({...})), got ${describeValue(input)}.`;
}
