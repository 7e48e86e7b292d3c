import type { ToolProblem } from "../protocol/tool-problem.js";

/**
 * ToolError: thrown by a tool to report an expected failure whose message the model (and the
 * user) may read. Any other exception is unexpected and reaches the model as a masked message.
 * Give it a `problem` (a code and its facts) so a front end can say it in its own words.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  /** The failure for programs, sent beside the message as the result's `problem`. */
  readonly problem: ToolProblem | undefined;

  constructor(message: string, problem?: ToolProblem) {
    super(message);
    this.problem = problem;
  }
}
