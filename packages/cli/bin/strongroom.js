#!/usr/bin/env node
// Committed rather than built: npm links a workspace's commands while installing, before `prepare`
// has built dist/, and a command whose file is missing then is never linked (npx would look the
// name up on the public registry instead). This file always exists; it loads the built code.
import { existsSync } from "node:fs";

const main = new URL("../dist/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write("strongroom: the CLI is not built yet; run `npm run build` in the repository first\n");
  process.exit(1);
}
await import(main.href);
