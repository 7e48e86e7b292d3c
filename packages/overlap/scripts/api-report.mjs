#!/usr/bin/env node
/**
 * The public API of every entry point of overlap-runtime, as API Extractor reports
 * (`packages/overlap/api/<entry>.api.md`), made from the built declarations (`dist/`).
 *
 *   node scripts/api-report.mjs           check: fails when an entry point's API differs from its
 *                                         checked-in report (CI runs this through `npm test`)
 *   node scripts/api-report.mjs --update  writes the reports anew; commit them with the change
 *
 * A change to the public API is then always visible in review: the report changes with it.
 */

import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const update = process.argv.includes("--update");
const reportFolder = join(root, "api");
const tempFolder = join(root, "node_modules", ".api-report");
mkdirSync(reportFolder, { recursive: true });
mkdirSync(tempFolder, { recursive: true });

let failed = 0;
for (const [key, target] of Object.entries(manifest.exports)) {
  if (typeof target !== "object" || !target.types) continue;
  const name = key === "." ? "overlap-runtime" : `overlap-runtime-${key.slice(2)}`;
  const entry = join(root, target.types);
  if (!existsSync(entry)) {
    console.error(`${entry} is missing: build the package first (npm run build).`);
    process.exit(2);
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: entry,
      bundledPackages: [],
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: "ES2022",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            skipLibCheck: true,
            lib: ["ES2023", "DOM"],
            types: ["node"],
          },
          include: ["dist/**/*.d.ts"],
        },
      },
      apiReport: {
        enabled: true,
        reportFolder,
        reportTempFolder: tempFolder,
        reportFileName: `${name}.api.md`,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The reports are the point; TSDoc style and forgotten-export notes are not failures.
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          default: { logLevel: "none" },
          "ae-missing-release-tag": { logLevel: "none" },
        },
        tsdocMessageReporting: { default: { logLevel: "none" } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(root, "package.json"),
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    showVerboseMessages: false,
    messageCallback: (message) => {
      if (message.logLevel === "warning" || message.logLevel === "error") {
        message.handled = true; // compiler notes about dependencies' types: not ours
      }
    },
  });
  if (result.apiReportChanged && !update) {
    failed++;
    console.error(
      `${key}: the public API differs from api/${name}.api.md. If the change is meant, run ` +
        "`npm run api:update -w packages/overlap`, commit the report, and add a changeset.",
    );
  } else {
    console.log(`${key}: ${update && result.apiReportChanged ? "report written" : "unchanged"}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
