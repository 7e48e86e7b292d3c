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

  it("never repeats a Redis password in an error or a log line", () => {
    expect(() => loadConfig({ REDIS_URL: "http://user:s3cret@cache" })).toThrow(
      /http:\/\/user:\*\*\*@cache/,
    );
    expect(describeRedisUrl("redis://:s3cret@cache:6379")).toBe("redis://:***@cache:6379");
    expect(describeRedisUrl("not a url //user:s3cret@x")).not.toContain("s3cret");
  });
});
