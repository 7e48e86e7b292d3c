/**
 * The shop server's settings, read once from the environment and checked, so a typo in `PORT` or
 * `LOG_LEVEL` stops the start with a clear sentence instead of a strange failure later. The model
 * (`ANTHROPIC_*`, `OPENAI_*`, `MODEL`) is chosen by `modelFromEnv` from the same environment.
 */

import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { resolveStoreTarget, type StoreTarget } from "./db/open-store.js";
import { DEFAULT_TOKEN_TTL_MS } from "./db/shop-store.js";
import { parseTrustProxy, type TrustProxy } from "./parse-trust-proxy.js";
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from "./server/start-http-server.js";
import { DEFAULT_STREAM_LIMITS, type StreamLimitSettings } from "./server/stream-limits.js";

/** Log levels pino knows, quietest last. */
const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** A pino log level. */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The checked settings of one server process. */
export interface ShopConfig {
  /** `PORT`, default 3000 (0 picks a free port). */
  readonly port: number;
  /**
   * `HOST`, default `127.0.0.1`: the interface the server listens on. Only this machine can reach
   * the default; `0.0.0.0` (or `::`) listens on every interface, for a container or a proxy
   * elsewhere.
   */
  readonly host: string;
  /** `RATE_LIMIT_SESSIONS_PER_MINUTE`, default 30: shopper sessions one address may create. */
  readonly sessionsPerMinute: number;
  /** `RATE_LIMIT_TURNS_PER_MINUTE`, default 20: turns one session may start. */
  readonly turnsPerMinute: number;
  /**
   * `TRUST_PROXY`, unset by default: the reverse proxies in front of the server, as a number of
   * hops or a list of addresses and networks. Set, the client address of the rate limits and the
   * request log is read from `X-Forwarded-For` through them (`server/trust-proxy.ts`); unset, the
   * header is ignored and the socket's address is the client's.
   */
  readonly trustProxy: TrustProxy | undefined;
  /**
   * SSE streams open at once in this process: `MAX_STREAMS_PER_CHAT` (default 8),
   * `MAX_STREAMS_PER_SHOPPER` (32, all chats of one shopper) and `MAX_STREAMS_PER_ADDRESS` (64,
   * one client address); past them, 429 with `Retry-After`.
   */
  readonly streamLimits: StreamLimitSettings;
  /**
   * `MAX_CONNECTIONS`, default 900: connections open at once in this process; the next ones are
   * answered 503 with `Retry-After` and closed.
   */
  readonly maxConnections: number;
  /**
   * `MAX_CONNECTIONS_PER_ADDRESS`, default 64: connections one client address (read through
   * `TRUST_PROXY` as the rate limits read it) may hold at once; the next ones from it are answered
   * 429 with `Retry-After` and closed. The last slots of `MAX_CONNECTIONS` are kept for addresses
   * holding none, so a health probe gets in while one address holds what it may.
   */
  readonly maxConnectionsPerAddress: number;
  /** `HEADERS_TIMEOUT_MS`, default 10 000: how long a request's headers may take to arrive. */
  readonly headersTimeoutMs: number;
  /**
   * `REQUEST_TIMEOUT_MS`, default 30 000: how long a whole request, its body included, may take
   * to arrive (not the response: a turn stream lasts as long as the turn). At least
   * `HEADERS_TIMEOUT_MS`.
   */
  readonly requestTimeoutMs: number;
  /**
   * `REDIS_URL` (`redis://` or `rediss://`), unset by default: then turn events and rate limits
   * live in this process. Set, several instances share them (a stream started on one resumes on
   * another; limits count across all). `REDIS_KEY_PREFIX` (default `shop:`) starts every key.
   */
  readonly redis: { readonly url: string; readonly keyPrefix: string } | undefined;
  /**
   * `SHUTDOWN_GRACE_MS`, default 10 000: on SIGTERM/SIGINT, how long running turns may go on
   * (new ones are refused) before the rest are cancelled and repaired.
   */
  readonly shutdownGraceMs: number;
  /** Where the store lives: `DATABASE_URL` (PostgreSQL), else SQLite in `DATA_DIR` (./data). */
  readonly database: StoreTarget;
  /** `MERCHANT_TOKEN`, or a random one generated for this process. */
  readonly merchantToken: string;
  /** True when the merchant token was generated: the start banner prints it once. */
  readonly merchantTokenGenerated: boolean;
  /** `METRICS_TOKEN`: the bearer token of `GET /metrics`; default the merchant token. */
  readonly metricsToken: string;
  /** `LOG_LEVEL`, default `info`. */
  readonly logLevel: LogLevel;
  /**
   * `SHOP_TOOL_DELAY_MS`, test only (default 0): each state-changing tool holds its transaction
   * open this long between writing its effect and writing its ledger record, so crash tests can
   * kill the server while a tool runs. Never set it in production.
   */
  readonly toolDelayMs: number;
  /**
   * `APPROVAL_TIMEOUT_MS`, default 300 000 (5 minutes): how long a call that needs the shopper's
   * approval (checkout) waits for Confirm or Cancel before it is answered as not taken.
   */
  readonly approvalTimeoutMs: number;
  /**
   * `SESSION_TOKEN_TTL`, default 30 days: how long a shopper's token and a chat's (or merchant
   * session's) token open anything, from their creation; afterwards they answer 401 as unknown
   * ones. A chat made with a token expires no later than that token: every chat of a shopper
   * expires with the shopper. Milliseconds, or a whole number with a unit: `30d`, `12h`, `90m`,
   * `45s`.
   */
  readonly sessionTokenTtlMs: number;
  /**
   * `TURN_LEASE_MS`, default 20 000: how long a chat's turn lease lasts without renewal (renewed
   * every third of it while the turn runs). An instance that dies holding one blocks that chat
   * this long at most; then the next message on any instance takes it over and repairs it.
   */
  readonly turnLeaseMs: number;
}

/** A setting that cannot be used; the message names the variable and what is expected. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** Reads and checks the settings. @throws ConfigError for an unusable value. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): ShopConfig {
  const merchantToken = env.MERCHANT_TOKEN?.trim() || undefined;
  if (merchantToken !== undefined && merchantToken.length < 16) {
    throw new ConfigError("MERCHANT_TOKEN must be at least 16 characters long.");
  }
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined && metricsToken.length < 16) {
    throw new ConfigError("METRICS_TOKEN must be at least 16 characters long.");
  }
  const merchant = merchantToken ?? randomBytes(24).toString("base64url");
  const headersTimeoutMs = parseMs("HEADERS_TIMEOUT_MS", env.HEADERS_TIMEOUT_MS, {
    fallback: DEFAULT_HEADERS_TIMEOUT_MS,
    min: 1_000,
    max: MAX_HEADERS_TIMEOUT_MS,
  });
  const requestTimeoutMs = parseMs("REQUEST_TIMEOUT_MS", env.REQUEST_TIMEOUT_MS, {
    fallback: DEFAULT_REQUEST_TIMEOUT_MS,
    min: 1_000,
    max: MAX_REQUEST_TIMEOUT_MS,
  });
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(
      `HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs}): the headers are part of the request.`,
    );
  }
  return {
    port: parsePort(env.PORT),
    host: parseHost(env.HOST),
    sessionsPerMinute: parseCount(
      "RATE_LIMIT_SESSIONS_PER_MINUTE",
      env.RATE_LIMIT_SESSIONS_PER_MINUTE,
      DEFAULT_SESSIONS_PER_MINUTE,
    ),
    turnsPerMinute: parseCount(
      "RATE_LIMIT_TURNS_PER_MINUTE",
      env.RATE_LIMIT_TURNS_PER_MINUTE,
      DEFAULT_TURNS_PER_MINUTE,
    ),
    streamLimits: {
      perChat: parseCount(
        "MAX_STREAMS_PER_CHAT",
        env.MAX_STREAMS_PER_CHAT,
        DEFAULT_STREAM_LIMITS.perChat,
      ),
      perShopper: parseCount(
        "MAX_STREAMS_PER_SHOPPER",
        env.MAX_STREAMS_PER_SHOPPER,
        DEFAULT_STREAM_LIMITS.perShopper,
      ),
      perAddress: parseCount(
        "MAX_STREAMS_PER_ADDRESS",
        env.MAX_STREAMS_PER_ADDRESS,
        DEFAULT_STREAM_LIMITS.perAddress,
      ),
    },
    maxConnections: parseCount("MAX_CONNECTIONS", env.MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS),
    maxConnectionsPerAddress: parseCount(
      "MAX_CONNECTIONS_PER_ADDRESS",
      env.MAX_CONNECTIONS_PER_ADDRESS,
      DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    ),
    headersTimeoutMs,
    requestTimeoutMs,
    trustProxy: parseTrust(env.TRUST_PROXY),
    redis: parseRedis(env.REDIS_URL, env.REDIS_KEY_PREFIX),
    shutdownGraceMs: parseMs("SHUTDOWN_GRACE_MS", env.SHUTDOWN_GRACE_MS, {
      fallback: DEFAULT_SHUTDOWN_GRACE_MS,
      min: 0,
      max: 600_000,
    }),
    database: resolveStoreTarget({ env }),
    merchantToken: merchant,
    merchantTokenGenerated: merchantToken === undefined,
    metricsToken: metricsToken ?? merchant,
    logLevel: parseLogLevel(env.LOG_LEVEL),
    toolDelayMs: parseMs("SHOP_TOOL_DELAY_MS (test only)", env.SHOP_TOOL_DELAY_MS, {
      fallback: 0,
      min: 0,
      max: 60_000,
    }),
    approvalTimeoutMs: parseMs("APPROVAL_TIMEOUT_MS", env.APPROVAL_TIMEOUT_MS, {
      fallback: DEFAULT_APPROVAL_TIMEOUT_MS,
      min: 1_000,
      max: 86_400_000,
    }),
    sessionTokenTtlMs: parseTokenTtl(env.SESSION_TOKEN_TTL),
    turnLeaseMs: parseMs("TURN_LEASE_MS", env.TURN_LEASE_MS, {
      fallback: DEFAULT_TURN_LEASE_MS,
      min: 1_000,
      max: 600_000,
    }),
  };
}

/** A database location fit for a log line or a banner: a PostgreSQL password is hidden. */
export function describeDatabase(target: StoreTarget): string {
  if (target.kind === "sqlite") return `SQLite ${target.file}`;
  try {
    const url = new URL(target.connectionString);
    if (url.password) url.password = "***";
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return "PostgreSQL (DATABASE_URL)";
  }
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return 3000;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new ConfigError(`PORT must be a whole number from 0 to 65535 (got "${value}").`);
  }
  return port;
}

/** The default of {@link ShopConfig.host}: this machine only, as the scripted model listens. */
export const DEFAULT_HOST = "127.0.0.1";

function parseHost(value: string | undefined): string {
  if (value === undefined || value.trim() === "") return DEFAULT_HOST;
  const host = value.trim();
  // An address, or a host name (letters, digits, hyphens, dots), as listen() accepts.
  const name =
    /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
  if (isIP(host) === 0 && !name.test(host)) {
    throw new ConfigError(
      `HOST must be an IP address or a host name, e.g. 127.0.0.1 or 0.0.0.0 (got "${value}").`,
    );
  }
  return host;
}

/** The default of {@link ShopConfig.sessionsPerMinute}. */
export const DEFAULT_SESSIONS_PER_MINUTE = 30;
/** The default of {@link ShopConfig.turnsPerMinute}. */
export const DEFAULT_TURNS_PER_MINUTE = 20;

/** A count (things open at once, or per minute): a whole number from 1 to 1,000,000. */
function parseCount(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) {
    throw new ConfigError(`${name} must be a whole number from 1 to 1000000 (got "${value}").`);
  }
  return n;
}

/** The longest {@link ShopConfig.headersTimeoutMs}: 10 minutes. */
const MAX_HEADERS_TIMEOUT_MS = 600_000;
/** The longest {@link ShopConfig.requestTimeoutMs}: an hour. */
const MAX_REQUEST_TIMEOUT_MS = 3_600_000;

/** The bounds of a setting in milliseconds, and its value when unset. */
interface MsBounds {
  readonly fallback: number;
  readonly min: number;
  readonly max: number;
}

/** A duration in whole milliseconds within `bounds`; `name` starts the refusal's sentence. */
function parseMs(name: string, value: string | undefined, bounds: MsBounds): number {
  if (value === undefined || value.trim() === "") return bounds.fallback;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < bounds.min || ms > bounds.max) {
    throw new ConfigError(
      `${name} must be a whole number of milliseconds from ${bounds.min} to ${bounds.max} (got "${value}").`,
    );
  }
  return ms;
}

function parseTrust(value: string | undefined): TrustProxy | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  try {
    return parseTrustProxy(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `TRUST_PROXY must be a number of proxy hops (0 to 100) or a comma-separated list of proxy addresses and networks, e.g. 1 or 10.0.0.0/8, fd00::/8 (got "${value}": ${reason}).`,
    );
  }
}

/** The default key prefix in Redis. */
export const DEFAULT_REDIS_KEY_PREFIX = "shop:";

function parseRedis(value: string | undefined, prefix: string | undefined): ShopConfig["redis"] {
  const keyPrefix = prefix === undefined || prefix === "" ? DEFAULT_REDIS_KEY_PREFIX : prefix;
  if (/[\s{}]/.test(keyPrefix) || keyPrefix.length > 100) {
    throw new ConfigError(
      `REDIS_KEY_PREFIX must be at most 100 characters without spaces or braces (got "${prefix}").`,
    );
  }
  if (value === undefined || value.trim() === "") return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value.trim());
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== "redis:" && url.protocol !== "rediss:") || !url.hostname) {
    throw new ConfigError(
      `REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379 (got "${describeRedisUrl(value)}").`,
    );
  }
  return { url: url.toString(), keyPrefix };
}

/** A Redis URL fit for a log line or a banner: the password is hidden. */
export function describeRedisUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return value.replace(/\/\/[^@/]*@/, "//***@");
  }
}

/** The default of {@link ShopConfig.shutdownGraceMs}. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/** The default of {@link ShopConfig.approvalTimeoutMs}: 5 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 5 * 60_000;

/** Milliseconds per unit of {@link parseTokenTtl}. */
const TTL_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** The bounds of {@link ShopConfig.sessionTokenTtlMs}: one minute to ten years. */
const MIN_TOKEN_TTL_MS = 60_000;
const MAX_TOKEN_TTL_MS = 3_650 * 86_400_000;

function parseTokenTtl(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_TOKEN_TTL_MS;
  const match = /^(\d{1,13})\s*(ms|s|m|h|d)?$/i.exec(value.trim());
  const ms = match ? Number(match[1]) * (TTL_UNITS[(match[2] ?? "ms").toLowerCase()] ?? 1) : NaN;
  if (!(ms >= MIN_TOKEN_TTL_MS && ms <= MAX_TOKEN_TTL_MS)) {
    throw new ConfigError(
      `SESSION_TOKEN_TTL must be a whole number of milliseconds, or of seconds, minutes, hours or days with s, m, h or d (e.g. 30d, 12h), from 1 minute to 3650 days (got "${value}").`,
    );
  }
  return ms;
}

/** The default of {@link ShopConfig.turnLeaseMs}. */
export const DEFAULT_TURN_LEASE_MS = 20_000;

function parseLogLevel(value: string | undefined): LogLevel {
  if (value === undefined || value.trim() === "") return "info";
  const level = value.trim().toLowerCase();
  const known = LOG_LEVELS.find((l) => l === level);
  if (!known) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${value}").`);
  }
  return known;
}
