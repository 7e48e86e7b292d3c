#!/usr/bin/env node
/** `overlap-sim`: runs the scripted model server until interrupted. */

import { CLI_USAGE, parseCliArgs, startupBanner } from "./cli-args.js";
import { startSim } from "./sim-server.js";

async function main(): Promise<void> {
  let command: ReturnType<typeof parseCliArgs>;
  try {
    command = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n\n${CLI_USAGE}`,
    );
    process.exitCode = 2;
    return;
  }
  if (command.help) {
    process.stdout.write(CLI_USAGE);
    return;
  }
  const sim = await startSim({
    ...command.options,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`${startupBanner(sim.url)}\n`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`overlap-sim: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
