/**
 * Ids in each API's own style, drawn from a seeded generator: the runtime's tests and logs see
 * ids that look like the real services' (`toolu_01…`, `call_…`), and a seed reproduces them.
 */

import type { SeededRandom } from "./seeded-random.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const HEX = "0123456789abcdef";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Makes the ids of one response. */
export class IdFactory {
  readonly #random: SeededRandom;

  constructor(random: SeededRandom) {
    this.#random = random;
  }

  /** `msg_01` and 22 base62 characters (24 after the prefix `msg_`). */
  anthropicMessage(): string {
    return `msg_01${this.#random.string(BASE62, 22)}`;
  }

  /** `toolu_01` and 22 base62 characters. */
  anthropicToolUse(): string {
    return `toolu_01${this.#random.string(BASE62, 22)}`;
  }

  /** `srvtoolu_01` and 22 base62 characters: a server-side tool call. */
  anthropicServerToolUse(): string {
    return `srvtoolu_01${this.#random.string(BASE62, 22)}`;
  }

  /** `req_011C` and 20 base62 characters, as in the `request-id` header and error bodies. */
  anthropicRequest(): string {
    return `req_011C${this.#random.string(BASE62, 20)}`;
  }

  /** `chatcmpl-` and 29 base62 characters. */
  openaiCompletion(): string {
    return `chatcmpl-${this.#random.string(BASE62, 29)}`;
  }

  /** `call_` and 24 base62 characters. */
  openaiCall(): string {
    return `call_${this.#random.string(BASE62, 24)}`;
  }

  /** `req_` and 32 hex digits, as in OpenAI's `x-request-id` header. */
  openaiRequest(): string {
    return `req_${this.#random.string(HEX, 32)}`;
  }

  /** `fp_` and 10 hex digits. */
  systemFingerprint(): string {
    return `fp_${this.#random.string(HEX, 10)}`;
  }

  /**
   * A thinking signature: opaque base64 text, as the API sends. It signs nothing; clients only
   * need to store it and send it back unchanged.
   */
  thinkingSignature(): string {
    return `Eq${this.#random.string(BASE64, 290)}`;
  }

  /** Opaque base64 text standing in for a web search result's `encrypted_content`. */
  encryptedContent(): string {
    return `Eq${this.#random.string(BASE64, 94)}`;
  }
}
