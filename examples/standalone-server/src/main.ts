/**
 * Your own node:http server, with Strongroom's API mounted under /api and your routes beside it.
 * Run with `npm start -w @strongroom/example-standalone-server`; PORT picks the port (0 = any free one).
 */
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStrongroom, generateRootKey } from "@strongroom/core";
import { answerClientError, createHandler } from "@strongroom/http-node";
import { createSqliteStorage } from "@strongroom/storage-sqlite";

const dataDir = process.env.DATA_DIR ?? mkdtempSync(join(tmpdir(), "strongroom-standalone-"));
const strongroom = await createStrongroom({
  storage: await createSqliteStorage({ filename: join(dataDir, "strongroom.db") }),
  rootKey: process.env.STRONGROOM_ROOT_KEY ?? generateRootKey(),
});
const api = createHandler(strongroom);

const server = createServer((req, res) => {
  if (req.url?.startsWith("/api/")) return api(req, res);
  // Everything else is the host application's own.
  res.writeHead(200, { "content-type": "text/plain" }).end("hello from the host application\n");
});
server.on("clientError", answerClientError);

server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});

const stop = () => {
  api.shutdown();
  server.close(() => void strongroom.close().then(() => process.exit(0)));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
