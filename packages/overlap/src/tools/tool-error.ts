/**
 * ToolError: thrown by a tool to report an expected failure whose message the model (and the
 * user) may read. Any other exception is unexpected and reaches the model as a masked message.
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
}
