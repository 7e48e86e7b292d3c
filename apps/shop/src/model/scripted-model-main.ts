/**
 * `npm run scripted-model`: the shop's scripted model (its policy, paced like the embedded one) as
 * a process of its own, so the shop's CPU and the model's can be measured apart. Prints
 * `Scripted model: <url>` once listening; stops on SIGINT/SIGTERM.
 */

import { startSim } from "overlap-sim";
import {
  parseScriptedModelArgs,
  SCRIPTED_MODEL_USAGE,
  type ScriptedModelCommand,
} from "./scripted-model-args.js";
import { shopPolicy } from "./shop-policy.js";

async function main(): Promise<void> {
  let command: ScriptedModelCommand;
  try {
    command = parseScriptedModelArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n\n${SCRIPTED_MODEL_USAGE}`,
    );
    process.exitCode = 2;
    return;
  }
  if (command.help) {
    process.stdout.write(SCRIPTED_MODEL_USAGE);
    return;
  }
  const sim = await startSim({
    policy: shopPolicy,
    port: command.port,
    host: command.host,
    pacing: command.pacing,
  });
  process.stdout.write(
    [
      `Scripted model: ${sim.url}`,
      "A scripted model, not a language model: the shop's fixed policy writes every answer.",
      `Point the shop at it: ANTHROPIC_BASE_URL=${sim.url} ANTHROPIC_API_KEY=any npm start`,
      "",
    ].join("\n"),
  );
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
  if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
    process.stderr.write("Cannot start the scripted model: its port is in use. Try --port 0.\n");
  } else {
    process.stderr.write(
      `The scripted model could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
  process.exit(1);
});
