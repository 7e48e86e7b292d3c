/** What a progressive preview card shows of a call's arguments while they stream. */

/** A best-effort JSON value shown while arguments stream: deep read-only, never executed. */
export type JsonPreview =
  | null
  | boolean
  | number
  | string
  | readonly JsonPreview[]
  | { readonly [key: string]: JsonPreview };
