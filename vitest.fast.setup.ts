/**
 * The guard of `npm run test:fast` (vitest.fast.config.ts), run before every test file there: a
 * unit test starts no process, listens on no port and opens no connection. Each of those throws
 * here, so a test that needs a service or a process fails the fast loop instead of slowing it
 * down (or hanging on a missing PostgreSQL). Such a test is named `*.int.test.ts`, lives in an
 * `e2e/` folder or is listed in vitest.fast.config.ts; `npm test` runs it.
 */

import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";

const RULE =
  "npm run test:fast runs unit tests only. A test that starts a process, a server or a connection is named *.int.test.ts, lives in e2e/ or is listed in vitest.fast.config.ts (npm test runs it)";

function refuse(what: string): never {
  throw new Error(`${what} in a unit test. ${RULE}.`);
}

const spawners = ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"];
const processes = childProcess as unknown as Record<string, unknown>;
for (const name of spawners) {
  processes[name] = () => refuse(`child_process.${name}()`);
}
net.Server.prototype.listen = function listen(): never {
  refuse("A server listening on a port");
};
net.Socket.prototype.connect = function connect(): never {
  refuse("A network connection");
};
// `import { spawn } from "node:child_process"` sees the replacements too.
syncBuiltinESMExports();
