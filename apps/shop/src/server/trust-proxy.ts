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

import { isIP, isIPv4, isIPv6 } from "node:net";

/** A network: an address as 16 bytes (IPv4 mapped into IPv6) and the length of its prefix. */
export interface AddressRange {
  readonly bytes: Uint8Array;
  /** Leading bits that must match, 0 to 128 (IPv4 ranges count from 96). */
  readonly prefix: number;
}

/** Which hops are trusted proxies. */
export type TrustProxy =
  /** The nearest `hops` hops (the socket's peer first). */
  | { readonly hops: number }
  /** Hops whose address is in one of these networks. */
  | { readonly ranges: readonly AddressRange[] };

/** Most hops `TRUST_PROXY` may name. */
export const MAX_TRUSTED_HOPS = 100;

/** Names of well-known networks a list may use (as Express's). */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ["127.0.0.0/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/**
 * Reads a `TRUST_PROXY` value: a whole number of hops, or a comma-separated list of addresses,
 * CIDR networks (`10.0.0.0/8`, `2001:db8::/32`, `::ffff:10.0.0.0/104`) and the names `loopback`,
 * `linklocal`, `uniquelocal`. `0` trusts nothing.
 * @throws RangeError saying which part is wrong.
 */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > MAX_TRUSTED_HOPS) {
      throw new RangeError(`a number of hops must be at most ${MAX_TRUSTED_HOPS}`);
    }
    return { hops };
  }
  const ranges: AddressRange[] = [];
  const parts = text.split(",").map((part) => part.trim());
  for (const part of parts) {
    if (part === "") throw new RangeError("the list has an empty entry");
    const named = NAMED_RANGES[part.toLowerCase()];
    for (const cidr of named ?? [part]) ranges.push(parseRange(cidr));
  }
  return { ranges };
}

function parseRange(text: string): AddressRange {
  const slash = text.indexOf("/");
  const address = slash === -1 ? text : text.slice(0, slash);
  const bytes = addressBytes(address);
  if (!bytes) {
    throw new RangeError(
      `"${text}" is not an IP address or network (e.g. 10.0.0.1, 10.0.0.0/8, 2001:db8::/32)`,
    );
  }
  const v4 = isIPv4(address);
  const bits = v4 ? 32 : 128;
  if (slash === -1) return { bytes, prefix: 128 };
  const prefixText = text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > bits) {
    throw new RangeError(`"${text}" has a prefix length that is not a number from 0 to ${bits}`);
  }
  // Bits after the prefix do not matter (10.0.0.1/8 is 10.0.0.0/8).
  return { bytes, prefix: v4 ? 96 + prefix : prefix };
}

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

/** 16 bytes of an IPv4 or IPv6 address (IPv4 as `::ffff:a.b.c.d`); undefined for anything else. */
export function addressBytes(text: string): Uint8Array | undefined {
  // A zone (fe80::1%eth0) names an interface of this host; the address is what counts.
  const address = text.includes("%") ? text.slice(0, text.indexOf("%")) : text;
  if (isIP(address) === 0) return undefined;
  const bytes = new Uint8Array(16);
  if (isIPv4(address)) {
    bytes[10] = 0xff;
    bytes[11] = 0xff;
    address.split(".").forEach((octet, i) => {
      bytes[12 + i] = Number(octet);
    });
    return bytes;
  }
  if (!isIPv6(address)) return undefined;
  // An IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  let body = address;
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (tail?.[1] !== undefined) {
    const o = tail[1].split(".").map(Number);
    const hi = (((o[0] ?? 0) << 8) | (o[1] ?? 0)).toString(16);
    const lo = (((o[2] ?? 0) << 8) | (o[3] ?? 0)).toString(16);
    body = `${address.slice(0, address.length - tail[1].length)}${hi}:${lo}`;
  }
  const [head = "", rest] = body.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  groups.forEach((group, i) => {
    const n = Number.parseInt(group, 16);
    bytes[2 * i] = n >> 8;
    bytes[2 * i + 1] = n & 0xff;
  });
  return bytes;
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
