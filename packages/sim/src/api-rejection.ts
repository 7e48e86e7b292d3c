/**
 * An error answer before any streaming, and its body in each API's own shape:
 * Anthropic `{"type":"error","error":{"type","message"},"request_id"}`,
 * OpenAI `{"error":{"message","type","param","code"}}`.
 */
export interface ApiRejection {
  status: number;
  /** The error type: Anthropic's `error.type` (`invalid_request_error`...) or OpenAI's `type`. */
  type: string;
  message: string;
  /** OpenAI only: the offending parameter. */
  param?: string | null;
  /** OpenAI only: a machine-readable code. */
  code?: string | null;
  /** Extra response headers (`retry-after`...). */
  headers?: Readonly<Record<string, string>>;
}

/** A 400 `invalid_request_error`. */
export function invalidRequest(
  message: string,
  param: string | null = null,
  code: string | null = null,
): ApiRejection {
  return { status: 400, type: "invalid_request_error", message, param, code };
}

/** The Messages API's error body. */
export function anthropicErrorBody(rejection: ApiRejection, requestId: string): unknown {
  return {
    type: "error",
    error: { type: rejection.type, message: rejection.message },
    request_id: requestId,
  };
}

/** The Chat Completions API's error body. */
export function openaiErrorBody(rejection: ApiRejection): unknown {
  return {
    error: {
      message: rejection.message,
      type: rejection.type,
      param: rejection.param ?? null,
      code: rejection.code ?? null,
    },
  };
}
