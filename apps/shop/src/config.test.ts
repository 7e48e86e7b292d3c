import { describe, expect, it } from "vitest";
import { ConfigError, describeRedisUrl, loadConfig } from "./config.js";

describe("loadConfig: the listening address, rate limits and Redis", () => {
  it("defaults: this machine only, 30 sessions and 20 turns a minute, no Redis", () => {
    const config = loadConfig({});
    expect(config.host).toBe("127.0.0.1");
    expect(config.sessionsPerMinute).toBe(30);
    expect(config.turnsPerMinute).toBe(20);
    expect(config.redis).toBeUndefined();
  });

  it("reads HOST, the two rate limits, REDIS_URL and REDIS_KEY_PREFIX", () => {
    const config = loadConfig({
      HOST: " 0.0.0.0 ",
      RATE_LIMIT_SESSIONS_PER_MINUTE: "1000",
      RATE_LIMIT_TURNS_PER_MINUTE: "5",
      REDIS_URL: "redis://127.0.0.1:6379/2",
      REDIS_KEY_PREFIX: "shop-a:",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      sessionsPerMinute: 1000,
      turnsPerMinute: 5,
      redis: { url: "redis://127.0.0.1:6379/2", keyPrefix: "shop-a:" },
    });
    expect(loadConfig({ HOST: "::" }).host).toBe("::");
    expect(loadConfig({ HOST: "localhost" }).host).toBe("localhost");
    expect(loadConfig({ HOST: "shop.internal" }).host).toBe("shop.internal");
    expect(loadConfig({ REDIS_URL: "rediss://u:p@cache:6380" }).redis).toEqual({
      url: "rediss://u:p@cache:6380",
      keyPrefix: "shop:",
    });
    expect(loadConfig({ RATE_LIMIT_TURNS_PER_MINUTE: "" }).turnsPerMinute).toBe(20);
  });

  it("refuses unusable values with a sentence naming the variable", () => {
    const refused = (env: Record<string, string>, pattern: RegExp) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(pattern);
    };
    refused({ HOST: "my host" }, /^HOST must be an IP address or a host name/);
    refused({ HOST: "http://0.0.0.0" }, /HOST .*got "http:\/\/0\.0\.0\.0"/);
    refused({ RATE_LIMIT_SESSIONS_PER_MINUTE: "0" }, /RATE_LIMIT_SESSIONS_PER_MINUTE must be/);
    refused({ RATE_LIMIT_SESSIONS_PER_MINUTE: "lots" }, /RATE_LIMIT_SESSIONS_PER_MINUTE/);
    refused({ RATE_LIMIT_TURNS_PER_MINUTE: "2.5" }, /RATE_LIMIT_TURNS_PER_MINUTE must be/);
    refused({ RATE_LIMIT_TURNS_PER_MINUTE: "-1" }, /RATE_LIMIT_TURNS_PER_MINUTE/);
    refused({ REDIS_URL: "127.0.0.1:6379" }, /REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    refused({ REDIS_URL: "http://cache:6379" }, /REDIS_URL/);
    refused({ REDIS_URL: "redis://x", REDIS_KEY_PREFIX: "a b" }, /REDIS_KEY_PREFIX/);
  });

  it("TRUST_PROXY: unset trusts no proxy; a number of hops or a list of proxies", () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: " " }).trustProxy).toBeUndefined();
    expect(loadConfig({ TRUST_PROXY: "1" }).trustProxy).toEqual({ hops: 1 });
    expect(loadConfig({ TRUST_PROXY: "0" }).trustProxy).toEqual({ hops: 0 });
    const list = loadConfig({ TRUST_PROXY: "10.0.0.0/8, fd00::/8, 192.168.1.7, loopback" });
    expect(list.trustProxy && "ranges" in list.trustProxy && list.trustProxy.ranges).toHaveLength(
      5,
    );
  });

  it("TRUST_PROXY: a bad value says what is expected and which part is wrong", () => {
    const refused = (value: string, pattern: RegExp) => {
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(
        /^TRUST_PROXY must be a number of proxy hops \(0 to 100\) or a comma-separated list/,
      );
      expect(() => loadConfig({ TRUST_PROXY: value })).toThrow(pattern);
    };
    refused("true", /got "true": "true" is not an IP address or network/);
    refused("101", /at most 100/);
    refused(
      "10.0.0.0/40",
      /"10\.0\.0\.0\/40" has a prefix length that is not a number from 0 to 32/,
    );
    refused("10.0.0.1,,10.0.0.2", /empty entry/);
    refused("10.0.0.1, proxy.internal", /"proxy\.internal" is not an IP address/);
  });

  it("SESSION_TOKEN_TTL: 30 days by default; milliseconds or a number with a unit", () => {
    const day = 86_400_000;
    expect(loadConfig({}).sessionTokenTtlMs).toBe(30 * day);
    expect(loadConfig({ SESSION_TOKEN_TTL: "" }).sessionTokenTtlMs).toBe(30 * day);
    expect(loadConfig({ SESSION_TOKEN_TTL: "7d" }).sessionTokenTtlMs).toBe(7 * day);
    expect(loadConfig({ SESSION_TOKEN_TTL: " 12h " }).sessionTokenTtlMs).toBe(12 * 3_600_000);
    expect(loadConfig({ SESSION_TOKEN_TTL: "90m" }).sessionTokenTtlMs).toBe(90 * 60_000);
    expect(loadConfig({ SESSION_TOKEN_TTL: "3600s" }).sessionTokenTtlMs).toBe(3_600_000);
    expect(loadConfig({ SESSION_TOKEN_TTL: "86400000" }).sessionTokenTtlMs).toBe(day);
    expect(loadConfig({ SESSION_TOKEN_TTL: "60000ms" }).sessionTokenTtlMs).toBe(60_000);
    expect(loadConfig({ SESSION_TOKEN_TTL: "3650D" }).sessionTokenTtlMs).toBe(3_650 * day);
    for (const value of ["0", "59s", "3651d", "1.5d", "-1d", "30 days", "d", "1w", "forever"]) {
      expect(() => loadConfig({ SESSION_TOKEN_TTL: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ SESSION_TOKEN_TTL: value }), value).toThrow(
        new RegExp(`^SESSION_TOKEN_TTL must be .*e\\.g\\. 30d, 12h.*\\(got "${value}"\\)`),
      );
    }
  });

  it("never repeats a Redis password in an error or a log line", () => {
    expect(() => loadConfig({ REDIS_URL: "http://user:s3cret@cache" })).toThrow(
      /http:\/\/user:\*\*\*@cache/,
    );
    expect(describeRedisUrl("redis://:s3cret@cache:6379")).toBe("redis://:***@cache:6379");
    expect(describeRedisUrl("not a url //user:s3cret@x")).not.toContain("s3cret");
  });
});

describe("loadConfig: the HTTP edge's bounds", () => {
  it("defaults: 8, 32 and 64 streams per chat, shopper and address; 900 connections; 10 s headers, 30 s request", () => {
    const config = loadConfig({});
    expect(config.streamLimits).toEqual({ perChat: 8, perShopper: 32, perAddress: 64 });
    expect(config.maxConnections).toBe(900);
    expect(config.maxConnectionsPerAddress).toBe(64);
    expect(config.headersTimeoutMs).toBe(10_000);
    expect(config.requestTimeoutMs).toBe(30_000);
  });

  it("reads MAX_STREAMS_PER_*, MAX_CONNECTIONS, HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS", () => {
    const config = loadConfig({
      MAX_STREAMS_PER_CHAT: "2",
      MAX_STREAMS_PER_SHOPPER: " 5 ",
      MAX_STREAMS_PER_ADDRESS: "1000000",
      MAX_CONNECTIONS: "10000",
      MAX_CONNECTIONS_PER_ADDRESS: "16",
      HEADERS_TIMEOUT_MS: "5000",
      REQUEST_TIMEOUT_MS: "5000",
    });
    expect(config).toMatchObject({
      streamLimits: { perChat: 2, perShopper: 5, perAddress: 1_000_000 },
      maxConnections: 10_000,
      maxConnectionsPerAddress: 16,
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
    });
    expect(loadConfig({ MAX_CONNECTIONS: "" }).maxConnections).toBe(900);
    expect(loadConfig({ REQUEST_TIMEOUT_MS: "3600000" }).requestTimeoutMs).toBe(3_600_000);
  });

  it("refuses unusable values with a sentence naming the variable", () => {
    const refused = (env: Record<string, string>, pattern: RegExp) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(pattern);
    };
    refused({ MAX_STREAMS_PER_CHAT: "0" }, /^MAX_STREAMS_PER_CHAT must be a whole number/);
    refused({ MAX_STREAMS_PER_SHOPPER: "many" }, /MAX_STREAMS_PER_SHOPPER .*got "many"/);
    refused({ MAX_STREAMS_PER_ADDRESS: "1.5" }, /MAX_STREAMS_PER_ADDRESS/);
    refused({ MAX_CONNECTIONS: "1000001" }, /MAX_CONNECTIONS must be a whole number/);
    refused({ MAX_CONNECTIONS_PER_ADDRESS: "0" }, /^MAX_CONNECTIONS_PER_ADDRESS must be a whole/);
    refused({ HEADERS_TIMEOUT_MS: "999" }, /HEADERS_TIMEOUT_MS must be .* from 1000 to 600000/);
    refused({ REQUEST_TIMEOUT_MS: "3600001" }, /REQUEST_TIMEOUT_MS must be .* to 3600000/);
    refused(
      { HEADERS_TIMEOUT_MS: "20000", REQUEST_TIMEOUT_MS: "15000" },
      /HEADERS_TIMEOUT_MS \(20000\) must not be longer than REQUEST_TIMEOUT_MS \(15000\)/,
    );
    // The default request timeout (30 s) bounds a headers timeout given alone.
    refused(
      { HEADERS_TIMEOUT_MS: "60000" },
      /must not be longer than REQUEST_TIMEOUT_MS \(30000\)/,
    );
  });
});

describe("loadConfig: the turn lease", () => {
  it("TURN_LEASE_MS: 20 s by default, a whole number of ms from 1000 to 600000", () => {
    expect(loadConfig({}).turnLeaseMs).toBe(20_000);
    expect(loadConfig({ TURN_LEASE_MS: " " }).turnLeaseMs).toBe(20_000);
    expect(loadConfig({ TURN_LEASE_MS: "5000" }).turnLeaseMs).toBe(5_000);
    for (const bad of ["999", "600001", "1.5e3x", "ten", "2500.5"]) {
      expect(() => loadConfig({ TURN_LEASE_MS: bad })).toThrow(
        new RegExp(
          `^TURN_LEASE_MS must be a whole number of milliseconds .*got "${bad.replace(".", "\\.")}"`,
        ),
      );
    }
  });
});

describe("loadConfig: durations in milliseconds", () => {
  it("every duration takes a whole number of ms within its bounds, each named in the refusal", () => {
    const cases: Array<[string, number, number, number]> = [
      ["SHUTDOWN_GRACE_MS", 10_000, 0, 600_000],
      ["APPROVAL_TIMEOUT_MS", 300_000, 1_000, 86_400_000],
      ["TURN_LEASE_MS", 20_000, 1_000, 600_000],
      ["SHOP_TOOL_DELAY_MS", 0, 0, 60_000],
      ["REQUEST_TIMEOUT_MS", 30_000, 1_000, 3_600_000],
    ];
    for (const [name, fallback, min, max] of cases) {
      const config = (value?: string) => loadConfig(value === undefined ? {} : { [name]: value });
      const field = (value?: string) => {
        const c = config(value);
        return {
          SHUTDOWN_GRACE_MS: c.shutdownGraceMs,
          APPROVAL_TIMEOUT_MS: c.approvalTimeoutMs,
          TURN_LEASE_MS: c.turnLeaseMs,
          SHOP_TOOL_DELAY_MS: c.toolDelayMs,
          REQUEST_TIMEOUT_MS: c.requestTimeoutMs,
        }[name];
      };
      expect(field(), name).toBe(fallback);
      expect(field(" "), name).toBe(fallback);
      expect(field(String(max)), name).toBe(max);
      // A request timeout under the default headers timeout is refused for that (tested above).
      if (name !== "REQUEST_TIMEOUT_MS") expect(field(String(min)), name).toBe(min);
      for (const bad of [String(min - 1), String(max + 1), "1.5", "soon"]) {
        expect(() => config(bad), `${name}=${bad}`).toThrow(ConfigError);
        expect(() => config(bad), `${name}=${bad}`).toThrow(
          new RegExp(
            `^${name}( \\(test only\\))? must be a whole number of milliseconds from ${min} to ${max} \\(got "${bad.replace(".", "\\.")}"\\)`,
          ),
        );
      }
    }
  });
});
