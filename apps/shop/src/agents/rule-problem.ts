/**
 * A broken business rule as a tool's result: the rule's sentence for the model, and its code and
 * facts as the result's `problem`, from which the page writes its own words in either language.
 */

import type { ToolProblem, ToolResultSpec } from "overlap-runtime";
import type { RuleViolation } from "../domain/rule-violation.js";

/** The `problem` of a violated rule: its code and its facts. */
export function ruleProblem(violation: Pick<RuleViolation, "code" | "params">): ToolProblem {
  return violation.params === undefined
    ? { code: violation.code }
    : { code: violation.code, params: violation.params as Readonly<Record<string, unknown>> };
}

/** The error result of a violated rule. */
export function ruleResult(violation: RuleViolation): ToolResultSpec {
  return { text: violation.message, isError: true, problem: ruleProblem(violation) };
}

/** The error result of a product id the catalog does not have. */
export function unknownProductResult(text: string, productIds: readonly string[]): ToolResultSpec {
  const params: Readonly<Record<string, unknown>> = {
    ...(productIds.length === 1 ? { productId: productIds[0] } : {}),
    productIds,
  };
  return { text, isError: true, problem: { code: "unknown_product", params } };
}
