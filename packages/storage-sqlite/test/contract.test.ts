import { join } from "node:path";
import { runStorageContract } from "@strongroom/core/testing";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { tempDir } from "./temp-dir.js";

const dir = tempDir();
let files = 0;

runStorageContract("sqlite file", () => createSqliteStorage({ filename: join(dir, `contract-${++files}.db`) }));
runStorageContract("sqlite :memory:", () => createSqliteStorage({ filename: ":memory:" }));
