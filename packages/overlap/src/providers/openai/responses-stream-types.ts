/** The parts of the Responses API's stream the translator reads (the SDK's types are wider). */

/** An output item as the translator reads it (the SDK's types are wider). */
export interface ResponsesItem {
  type?: string;
  id?: string;
  status?: string;
  /** function_call */
  call_id?: string;
  name?: string;
  arguments?: string;
  /** message */
  role?: string;
  content?: Array<{
    type?: string;
    text?: string;
    refusal?: string;
    [field: string]: unknown;
  }> | null;
  [field: string]: unknown;
}

/** The response object carried by lifecycle events. */
export interface ResponsesResponse {
  id?: string;
  model?: string;
  status?: string;
  output?: ResponsesItem[] | null;
  usage?: { input_tokens?: number | null; output_tokens?: number | null } | null;
  incomplete_details?: { reason?: string | null } | null;
  error?: { code?: string | null; message?: string | null } | null;
}

/** The parts of a Responses stream event the translator reads. */
export interface ResponsesStreamEvent {
  type: string;
  sequence_number?: number;
  response?: ResponsesResponse;
  output_index?: number;
  content_index?: number;
  item_id?: string;
  item?: ResponsesItem;
  part?: {
    type?: string;
    text?: string;
    refusal?: string;
    annotations?: unknown;
    [field: string]: unknown;
  };
  /** `response.output_text.annotation.added`: the annotation and its place in the part. */
  annotation?: unknown;
  annotation_index?: number;
  delta?: string;
  text?: string;
  refusal?: string;
  arguments?: string;
  /** `error` events: the documented shape has these at the top level… */
  code?: string | null;
  message?: string | null;
  /** …and the API has been seen to nest them. */
  error?: { type?: string | null; code?: string | null; message?: string | null } | null;
}
