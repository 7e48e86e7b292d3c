import { describe, expect, it } from "vitest";
import { parseTrustProxy } from "./parse-trust-proxy.js";

describe("parseTrustProxy", () => {
  it("reads a number of hops", () => {
    expect(parseTrustProxy("1")).toEqual({ hops: 1 });
    expect(parseTrustProxy(" 2 ")).toEqual({ hops: 2 });
    expect(parseTrustProxy("0")).toEqual({ hops: 0 });
    expect(parseTrustProxy("100")).toEqual({ hops: 100 });
  });

  it("reads addresses, networks and names, IPv4 and IPv6", () => {
    const trust = parseTrustProxy("10.0.0.1, 192.168.0.0/16,2001:db8::/32, ::1, loopback");
    expect("ranges" in trust && trust.ranges.length).toBe(6);
  });

  it("refuses other values with the reason", () => {
    const cases: Array<[string, RegExp]> = [
      ["101", /at most 100/],
      ["-1", /not an IP address or network/],
      ["1.5", /not an IP address or network/],
      ["true", /"true" is not an IP address or network/],
      ["yes", /not an IP address/],
      ["10.0.0.0/33", /prefix length .* 0 to 32/],
      ["2001:db8::/129", /prefix length .* 0 to 128/],
      ["10.0.0.0/", /prefix length/],
      ["10.0.0.0/8/8", /prefix length/],
      ["10.0.0.0/x", /prefix length/],
      ["10.0.0.0/-1", /prefix length/],
      ["10.0.0.1,,10.0.0.2", /empty entry/],
      ["10.0.0.1,", /empty entry/],
      ["256.0.0.1", /not an IP address/],
      ["10.0.0", /not an IP address/],
      ["[::1]", /not an IP address/],
      ["10.0.0.1:80", /not an IP address/],
      ["proxy.internal", /not an IP address/],
    ];
    for (const [value, message] of cases) {
      expect(() => parseTrustProxy(value), value).toThrow(message);
    }
  });
});
