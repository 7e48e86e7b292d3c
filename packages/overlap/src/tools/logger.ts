/**
 * Where overlap reports what a host should see but that is no one's result: an unexpected
 * exception in a tool, a retried model request. Console-shaped, so `console` is one; for a
 * structured logger, pass an adapter (`{ error: (msg, err) => log.error({ err }, msg), warn: ... }`).
 */

/** A logger overlap writes to: a sentence, then the facts (the error itself, with its stack). */
export interface Logger {
  error(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
}

/** The default: the console (its `error` prints an Error's stack). */
export const consoleLogger: Logger = {
  error: (message, ...details) => console.error(message, ...details),
  warn: (message, ...details) => console.warn(message, ...details),
};

/** Writes with `logger`, never throwing: a failing logger must not break a tool or a turn. */
export function safeLog(
  logger: Logger | false | undefined,
  level: keyof Logger,
  message: string,
  ...details: unknown[]
): void {
  if (!logger) return;
  try {
    logger[level](message, ...details);
  } catch {
    // Nothing to report it to.
  }
}
