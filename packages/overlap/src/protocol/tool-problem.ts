/**
 * Why a call did not do what it was asked, for programs: a stable code and the facts the sentence
 * was made from. It travels beside the text the model reads (`tool-result.problem`), so a front end
 * writes its own words, in its own language, from the code and never has to read the model's
 * English (a reworded rule, or a new release of the schema library, then changes nothing on the page).
 */

/**
 * A machine-readable failure of one call.
 *
 * Codes the runtime itself sets:
 * - `invalid_input`: the arguments failed the tool's schema; `params.issues` lists each problem
 *   ({@link InputIssue}).
 * - `invalid_json`: the arguments never became valid JSON; the call was not run.
 * - `input_cut`: the response ended (its token limit) inside the arguments; not run.
 * - `unknown_tool`: no tool of that name (`params.name`).
 * - `timeout`: the tool ran past its limit (`params.timeoutMs`) and was aborted.
 *
 * A host sets its own codes on the results its tools return (`ToolResultSpec.problem`), e.g. a
 * shop's `insufficient_stock` with `{ productId, available }`.
 */
export interface ToolProblem {
  readonly code: string;
  /** The facts behind the code (names, limits, choices), JSON-serialisable. */
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * One way the arguments failed the schema, in the schema library's vocabulary but with no prose:
 * `too_big` / `too_small` (with `origin`: `number`, `string`, `array`…, the bound and whether it is
 * `inclusive`), `invalid_type` (`expected`; `missing` when the field was absent), `unrecognized_keys`
 * (`keys`), `invalid_value` (`values` allowed), `invalid_format` (`format`), `not_multiple_of`
 * (`divisor`), `custom`.
 */
export interface InputIssue {
  readonly code: string;
  /** Where in the arguments: property names and array indexes from the top. */
  readonly path: readonly (string | number)[];
  readonly origin?: string;
  readonly expected?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly inclusive?: boolean;
  /** True when the field was absent (an `invalid_type` of a required field). */
  readonly missing?: boolean;
  readonly keys?: readonly string[];
  readonly values?: readonly unknown[];
  readonly format?: string;
  readonly divisor?: number;
}
