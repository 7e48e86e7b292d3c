/**
 * The shop server's entry point (`npm start`): reads the environment, starts the shop, prints
 * where it is and what it talks to, and shuts down gracefully on SIGINT/SIGTERM: new turns are
 * refused, running ones get `SHUTDOWN_GRACE_MS` to finish, the rest are cancelled and repaired,
 * then everything closes and the process exits 0. A second signal exits at once (1); one arriving
 * within a second of the first is the same signal delivered twice (Ctrl-C reaches node from the
 * terminal and again from npm, which forwards it) and is ignored.
 */

import pino from "pino";
import { ConfigError, describeDatabase, describeRedisUrl, loadConfig } from "./config.js";
import { shopPolicy } from "./model/shop-policy.js";
import { RedisUnreachableError } from "./server/redis-connection.js";
import { startShop } from "./server/start-shop.js";
import { ensureWebBuild } from "./server/web-build.js";

/** A signal this soon after the first is the same one delivered twice, not a second one. */
const REPEATED_SIGNAL_MS = 1_000;

/** Runs the server until a signal stops it. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Cannot start: ${error.message}`);
    process.exitCode = 1;
    return;
  }
  const logger = pino({
    level: config.logLevel,
    // A safety net: no code path logs these, and they must stay out of the logs if one ever did.
    redact: ["token", "*.token", "authorization", "*.authorization", "headers.authorization"],
  });
  try {
    // A fresh clone has no build of the browser app: make it now (a few seconds, once).
    if ((await ensureWebBuild()).built) logger.info("built the browser app");
  } catch (error) {
    logger.warn({ err: error }, "could not build the browser app; serving the API only");
  }
  const shop = await startShop({ config, logger, env: process.env, policy: shopPolicy });

  const lines = [
    `Shopping assistant: ${shop.url}`,
    `Model: ${shop.model.label}${shop.model.scripted ? " (embedded scripted model, not a language model; set ANTHROPIC_API_KEY or OPENAI_BASE_URL for a real one)" : ` (${shop.model.provider})`}`,
    `Database: ${describeDatabase(config.database)}`,
  ];
  if (config.redis) {
    lines.push(`Shared with other instances through Redis: ${describeRedisUrl(config.redis.url)}`);
  }
  if (config.merchantTokenGenerated) {
    lines.push(
      `Merchant token (generated for this run; set MERCHANT_TOKEN to choose one): ${config.merchantToken}`,
    );
  }
  console.log(lines.join("\n"));

  let stoppingAt: number | undefined;
  const stop = (signal: NodeJS.Signals) => {
    if (stoppingAt !== undefined) {
      if (Date.now() - stoppingAt < REPEATED_SIGNAL_MS) return;
      logger.warn({ signal }, "second signal: exiting now");
      process.exit(1);
    }
    stoppingAt = Date.now();
    logger.info(
      { signal, graceMs: config.shutdownGraceMs },
      "shutting down: new turns refused, running turns may finish within the grace period",
    );
    shop.close({ graceMs: config.shutdownGraceMs }).then(
      () => {
        logger.info("stopped");
        process.exitCode = 0;
        // Everything is closed; should a stray handle keep the process alive, do not wait for it.
        setTimeout(() => process.exit(0), 1_000).unref();
      },
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((error: unknown) => {
  if (error instanceof RedisUnreachableError) {
    console.error(`Cannot start: ${error.message}`);
  } else if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    console.error(`Cannot start: port ${process.env.PORT || 3000} is in use. Set PORT to another.`);
  } else {
    console.error("The shop could not start:", error);
  }
  process.exit(1);
});
