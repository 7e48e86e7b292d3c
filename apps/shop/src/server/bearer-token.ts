/** Reads the token of an `Authorization: Bearer <token>` header. */

const BEARER = /^Bearer[ \t]+([\x21-\x7e]{1,512})[ \t]*$/i;

/** The token, or `undefined` when the header is missing or not a bearer credential. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  return BEARER.exec(header)?.[1];
}
