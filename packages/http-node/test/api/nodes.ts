import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStrongroom, generateRootKey, ManualClock, type Strongroom } from "@strongroom/core";
import type { StrongroomStorage } from "@strongroom/core/storage";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { createHandler, type HandlerOptions } from "../../src/handler.js";
import type { ApiResponse, Backend } from "../../src/testing/harness.js";

/** One node of a deployment: its own Strongroom instance and HTTP server on the shared database. */
export interface ApiNode {
  url: string;
  strongroom: Strongroom;
  /** `from`: the client address, sent as X-Forwarded-For through the trusted loopback proxy. */
  request<T = any>(method: string, path: string, options?: { token?: string; body?: unknown; from?: string }): Promise<ApiResponse<T>>;
}

export interface Deployment {
  nodes: ApiNode[];
  clock: ManualClock;
  close(): Promise<void>;
}

/**
 * `count` nodes on one database (PostgreSQL: separate pools, as separate processes would have;
 * SQLite: one node, since its file takes one writer process). Loopback is a trusted proxy, so a
 * test picks each request's client address with `from`.
 */
export async function startDeployment(backend: Backend, count: number, handler: Omit<HandlerOptions, "logger"> = {}): Promise<Deployment> {
  const clock = new ManualClock(new Date());
  const rootKey = generateRootKey();
  const closers: (() => Promise<void>)[] = [];
  const open: (() => Promise<StrongroomStorage>)[] = [];
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-nodes-"));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    open.push(() => createSqliteStorage({ filename: join(dir, "strongroom.db") }));
  } else {
    const pg = await withPostgres();
    if (!pg.available) throw new Error("PostgreSQL unavailable");
    closers.push(() => pg.drop());
    for (let i = 0; i < count; i++) open.push(() => createPostgresStorage({ connectionString: pg.url }));
  }
  const nodes: ApiNode[] = [];
  const servers: { server: Server; strongroom: Strongroom }[] = [];
  for (const opener of open) {
    // One at a time: the first migrates the database.
    const strongroom = await createStrongroom({ storage: await opener(), rootKey, clock, config: { allowPrivateTargets: true } });
    const server = createServer(createHandler(strongroom, { trustedProxies: ["127.0.0.1", "::1"], ...handler, logger: () => {} }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    servers.push({ server, strongroom });
    nodes.push({
      url,
      strongroom,
      async request(method, path, options = {}) {
        const headers: Record<string, string> = {};
        if (options.token) headers.authorization = `Bearer ${options.token}`;
        if (options.from) headers["x-forwarded-for"] = options.from;
        if (options.body !== undefined) headers["content-type"] = "application/json";
        const res = await fetch(url + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
        const text = await res.text();
        return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
      },
    });
  }
  return {
    nodes,
    clock,
    async close() {
      for (const { server, strongroom } of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await strongroom.close();
      }
      for (const close of closers) await close();
    },
  };
}
