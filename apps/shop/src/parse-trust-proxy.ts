/**
 * Reads `TRUST_PROXY` (as Express's "trust proxy"): which hops in front of the server are its own
 * reverse proxies, as a number of hops or a list of addresses and networks. The configuration
 * reads it at the start; `server/trust-proxy.ts` walks `X-Forwarded-For` with the result.
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
