/**
 * defineJsonSchemaTool: a tool whose input is described by a JSON Schema rather than a zod schema,
 * for tools defined elsewhere (an MCP server's tools, an OpenAPI operation...). The schema is sent
 * to the model unchanged and checked with ajv, compiled once here. Everything else is
 * {@link defineTool}'s: the same name rules, kinds, dispatch policies and timeouts, and the same
 * outcomes in the ToolExecutor (input failing the schema is an `invalid_input` result, and the
 * tool never runs).
 *
 * The dialect follows the schema's `$schema`: draft-04/06/07 are checked as draft-07, 2019-09 as
 * 2019-09, anything else (or none, as MCP says) as 2020-12. Unknown keywords and formats are
 * ignored rather than rejected: the schema is someone else's.
 */

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2019 } from "ajv/dist/2019.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { z } from "zod";
import { type ApprovalPolicy, type ApprovalSummary, approvalMethods } from "./approval.js";
import {
  type DispatchPolicy,
  defineTool,
  type Tool,
  type ToolContext,
  type ToolEffects,
  type ToolKind,
  type ToolReturn,
} from "./define-tool.js";
import {
  checkToolBasics,
  describeValue,
  describeZod,
  invalidDefinition,
  isZodSchema,
  toolLabel,
} from "./tool-definition-checks.js";

/** A tool input that passed its JSON Schema: a JSON object. */
export type JsonObject = Record<string, unknown>;

/**
 * A JSON Schema a tool's input may have: an object schema. The model APIs send a call's arguments
 * as one JSON object, so `type` must be `"object"`; typing it here refuses `{ type: "array" }` at
 * compile time rather than when the tool is defined. The keywords a tool's schema usually has are
 * named; any other keyword (`$schema`, `$defs`, `description`, `oneOf`...) is allowed as is, since
 * the schema often comes from elsewhere (an MCP server, an OpenAPI operation). Readonly, so that a
 * schema written `as const` fits.
 */
export interface JsonObjectSchema {
  /** Always `"object"`: the model APIs send a call's arguments as a JSON object. */
  readonly type: "object";
  /** Each property's own JSON Schema, by name. */
  readonly properties?: Readonly<Record<string, unknown>>;
  /** The properties a call must give. */
  readonly required?: readonly string[];
  /** Whether (`true`, `false`) or how (a schema) properties not in `properties` are allowed. */
  readonly additionalProperties?: boolean | Readonly<Record<string, unknown>>;
  /** Any other JSON Schema keyword, sent to the model and checked by ajv as is. */
  readonly [keyword: string]: unknown;
}

/** The zod schema a JSON Schema tool is held by (it runs the compiled ajv validator). */
export type JsonSchemaInput = z.ZodType<JsonObject>;

/** The definition passed to {@link defineJsonSchemaTool}. */
export interface JsonSchemaToolConfig<C> {
  name: string;
  description: string;
  /**
   * JSON Schema of the input, an object schema; the model receives it as is. A caller the type does
   * not hold (JavaScript, a cast) is still checked when the tool is defined.
   */
  inputSchema: JsonObjectSchema;
  kind?: ToolKind;
  dispatch?: DispatchPolicy;
  /** Milliseconds before the call is aborted and reported as a timeout. */
  timeoutMs?: number;
  /** Calls of tools with the same sequence run one at a time in call order (see `ToolConfig.sequence`). */
  sequence?: string;
  /** How the tool's effects are recorded (see `ToolEffects`); default `external`. */
  effects?: ToolEffects;
  /** The user must approve a call before it runs (see `ToolConfig.approval`). */
  approval?: ApprovalPolicy<JsonObject, C>;
  /** The approval request's summary of a call (see `ToolConfig.summarize`). */
  summarize?: (input: JsonObject, context: C) => ApprovalSummary | Promise<ApprovalSummary>;
  run(input: JsonObject, ctx: ToolContext<C>): ToolReturn | Promise<ToolReturn>;
}

/** Checks a JSON Schema tool's `inputSchema`: present, a JSON Schema (not zod), of type "object". */
function checkJsonSchemaInput(config: Readonly<Record<string, unknown>>): void {
  const label = toolLabel(config.name);
  const { inputSchema } = config;
  if (inputSchema === undefined) {
    invalidDefinition(
      config.input !== undefined
        ? `${label}: defineJsonSchemaTool takes a JSON Schema as inputSchema; for a zod schema (input) use defineTool.`
        : `${label}: it has no inputSchema; add a JSON Schema such as inputSchema: { type: "object", properties: {...} }.`,
    );
  }
  if (isZodSchema(inputSchema)) {
    invalidDefinition(
      `${label}: its inputSchema is a zod schema (${describeZod(inputSchema)}); use defineTool({ input }) for zod, defineJsonSchemaTool takes a JSON Schema object.`,
    );
  }
  if (typeof inputSchema !== "object" || inputSchema === null || Array.isArray(inputSchema)) {
    invalidDefinition(
      `${label}: its inputSchema must be a JSON Schema object such as { type: "object", properties: {...} }, got ${describeValue(inputSchema)}.`,
    );
  }
  const { type } = inputSchema as Record<string, unknown>;
  if (type !== "object") {
    invalidDefinition(
      `${label}: its input schema must have type "object" (the model APIs send tool arguments as a JSON object), got ${type === undefined ? "no type" : `type ${JSON.stringify(type)}`}; put the value in a property: { type: "object", properties: { value: {...} } }.`,
    );
  }
}

/** Most schema failures listed in one `invalid_input` result. */
const MAX_ISSUES = 10;

/**
 * Defines a tool from a JSON Schema. Throws an `OverlapError` with code `invalid_tool_definition`
 * for what {@link defineTool} refuses (a name the model APIs would reject, a missing `run`...), a
 * missing schema, a schema that is not an object schema, or one ajv cannot compile (a `$ref` it
 * cannot resolve...).
 */
export function defineJsonSchemaTool<C = unknown>(
  config: JsonSchemaToolConfig<C>,
): Tool<JsonSchemaInput, C> {
  checkToolBasics(config, "defineJsonSchemaTool");
  checkJsonSchemaInput(config as unknown as Record<string, unknown>);
  // defineTool checks the rest; its zod schema is replaced below.
  const base = defineTool<z.ZodObject, C>({
    name: config.name,
    description: config.description,
    input: z.object({}),
    ...(config.kind !== undefined ? { kind: config.kind } : {}),
    ...(config.dispatch !== undefined ? { dispatch: config.dispatch } : {}),
    ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.sequence !== undefined ? { sequence: config.sequence } : {}),
    ...(config.effects !== undefined ? { effects: config.effects } : {}),
    run: () => "",
  });
  return {
    ...base,
    input: jsonSchemaValidator(config.name, config.inputSchema),
    inputSchema: config.inputSchema as Record<string, unknown>,
    run: config.run,
    ...approvalMethods(config.name, config.approval, config.summarize),
  };
}

/**
 * A zod schema that checks a value with a JSON Schema (compiled once, by ajv), its failures as zod
 * issues; what holds a JSON Schema tool's input, and a turn's JSON Schema `output`. Throws
 * `invalid_tool_definition` for a schema ajv cannot compile (`name` says whose).
 */
export function jsonSchemaValidator(name: string, schema: JsonObjectSchema): JsonSchemaInput {
  const validate = compileJsonSchema(name, schema);
  return z.custom<JsonObject>().superRefine((value, ctx) => {
    if (validate(value)) return;
    for (const issue of schemaIssues(validate.errors ?? [])) ctx.addIssue(issue);
  });
}

type Dialect = "draft-07" | "2019-09" | "2020-12";

const validators = new Map<Dialect, Ajv>();

function ajvFor(dialect: Dialect): Ajv {
  let ajv = validators.get(dialect);
  if (!ajv) {
    const options = {
      // Someone else's schema: unknown keywords and formats are ignored, not fatal.
      strict: false,
      logger: false as const,
      allErrors: true,
      // Tools' schemas are compiled apart: two may use the same $id.
      addUsedSchema: false,
    };
    ajv =
      dialect === "2020-12"
        ? new Ajv2020(options)
        : dialect === "2019-09"
          ? new Ajv2019(options)
          : new Ajv(options);
    validators.set(dialect, ajv);
  }
  return ajv;
}

function dialectOf(schema: JsonObjectSchema): Dialect {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (/draft-0[4-7]/.test(uri)) return "draft-07";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

function compileJsonSchema(name: string, schema: JsonObjectSchema): ValidateFunction {
  // The dialect is chosen from $schema; ajv itself would look it up and know only its own.
  const { $schema: _dialect, ...rest } = schema;
  try {
    return ajvFor(dialectOf(schema)).compile(rest);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    invalidDefinition(`Tool "${name}" input schema cannot be compiled: ${why}. Fix the schema.`);
  }
}

/** ajv's errors as zod issues: a path the model can follow and a message with the details. */
function schemaIssues(
  errors: readonly ErrorObject[],
): Array<{ code: "custom"; message: string; path: Array<string | number> }> {
  const seen = new Set<string>();
  const issues: Array<{ code: "custom"; message: string; path: Array<string | number> }> = [];
  for (const error of errors) {
    const path = pointerPath(error.instancePath);
    const message = issueMessage(error);
    const key = `${error.instancePath} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ code: "custom", message, path });
    if (issues.length === MAX_ISSUES) break;
  }
  if (issues.length === 0)
    issues.push({ code: "custom", message: "does not match the schema", path: [] });
  return issues;
}

function issueMessage(error: ErrorObject): string {
  const message = error.message ?? `fails "${error.keyword}"`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "additionalProperties":
      return `${message}: "${String(params.additionalProperty)}"`;
    case "enum":
      return `${message}: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${message}: ${JSON.stringify(params.allowedValue)}`;
    default:
      return message;
  }
}

/** A JSON Pointer ("/items/0/qty") as a path (["items", 0, "qty"]). */
function pointerPath(pointer: string): Array<string | number> {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((segment) => (/^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment));
}
