/**
 * The client's address behind reverse proxies (`TRUST_PROXY`, as Express's "trust proxy"). Each
 * proxy appends the address it received the request from to `X-Forwarded-For`, so the header's
 * right end was written by the proxy nearest to us and its left end by whoever sent the request
 * first, who may have written anything there. The walk starts at the socket's address (the first
 * hop) and goes right to left through the header while the hop it stands on is trusted; the first
 * hop that is not trusted is the client. Trust is either a number of hops (`2`: the socket's peer
 * and the proxy before it are ours) or a list of proxy addresses and networks.
 *
 * - Spoofed entries on the left are never reached: the walk stops at the first untrusted hop.
 * - A header shorter than the trusted hops ends the walk at its leftmost entry (as Express does).
 * - An entry that is not an address ends the walk too: the hop that wrote it, a trusted proxy, is
 *   the client then (a garbage entry never becomes a rate-limit key).
 * - Ports (`1.2.3.4:80`, `[2001:db8::1]:443`) are dropped; IPv4-mapped IPv6 addresses
 *   (`::ffff:10.0.0.1`, as Node reports IPv4 peers of a dual-stack socket) are IPv4 ones, and the
 *   address returned is in its canonical form.
 */

import { type AddressRange, addressBytes, type TrustProxy } from "../parse-trust-proxy.js";

// The setting's reader lives beside the configuration, which reads it; the server only walks.
export type { TrustProxy } from "../parse-trust-proxy.js";

/**
 * The client's address: the first hop, walking from `socketAddress` through `forwardedFor`
 * (the `X-Forwarded-For` header, several headers joined with commas) from the right, that is not
 * a trusted proxy. `undefined` when the socket's own address is not an IP address.
 */
export function forwardedClient(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trust: TrustProxy,
): string | undefined {
  let current = socketAddress === undefined ? undefined : addressBytes(socketAddress);
  if (!current) return undefined;
  const entries = forwardedFor === undefined ? [] : forwardedFor.split(",");
  // `hop` counts the hops passed: 0 is the socket's peer.
  for (let hop = 0; ; hop++) {
    const trusted = "hops" in trust ? hop < trust.hops : inRanges(current, trust.ranges);
    const next = entries.length > hop ? entries[entries.length - 1 - hop] : undefined;
    if (!trusted || next === undefined) return formatAddress(current);
    const bytes = addressBytes(stripPort(next.trim()));
    if (!bytes) return formatAddress(current);
    current = bytes;
  }
}

/**
 * Whether the socket's peer at `socketAddress` is a trusted proxy (the first hop of the walk of
 * {@link forwardedClient}), whose connections carry other clients' requests.
 */
export function trustsPeer(socketAddress: string | undefined, trust: TrustProxy): boolean {
  const bytes = socketAddress === undefined ? undefined : addressBytes(socketAddress);
  if (!bytes) return false;
  return "hops" in trust ? trust.hops > 0 : inRanges(bytes, trust.ranges);
}

/** An address without the port a proxy may have written after it. */
function stripPort(text: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(text);
  if (bracketed?.[1] !== undefined) return bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(text);
  if (v4WithPort?.[1] !== undefined) return v4WithPort[1];
  return text;
}

/** True for an address of the form `::ffff:a.b.c.d`. */
function isMappedV4(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

/** An address in its canonical text: dotted IPv4 for IPv4 (mapped too), RFC 5952 IPv6. */
export function formatAddress(bytes: Uint8Array): string {
  if (isMappedV4(bytes)) return Array.from(bytes.subarray(12)).join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  // The longest run of two or more zero groups (the first of equal ones) becomes "::".
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best === -1) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLength).join(":")}`;
}

function inRanges(bytes: Uint8Array, ranges: readonly AddressRange[]): boolean {
  return ranges.some((range) => sameNetwork(bytes, range));
}

/** True when the first `range.prefix` bits of `bytes` are those of the range. */
function sameNetwork(bytes: Uint8Array, range: AddressRange): boolean {
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== range.bytes[i]) return false;
  const rest = range.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((range.bytes[whole] ?? 0) & mask);
}
