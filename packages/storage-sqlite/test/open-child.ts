import { randomUUID } from "node:crypto";
import { createSqliteStorage } from "@strongroom/storage-sqlite";

/** Opens (and so migrates) the file given as argument, writes one row and closes. */
const storage = await createSqliteStorage({ filename: process.argv[2] });
const id = randomUUID();
const now = new Date().toISOString();
await storage.tables.organizations.insert({ id, name: id, slug: id, createdAt: now, updatedAt: now });
await storage.close();
