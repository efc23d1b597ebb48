import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { anonymous, createStrongroom, generateRootKey, type Strongroom } from "@strongroom/core";
import { tablesByArea } from "@strongroom/core/storage";
import type { StrongroomStorage as Storage } from "@strongroom/core/storage";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import { describe, expect, it } from "vitest";
import { withPostgres } from "@strongroom/storage-postgres/testing";

const MARKER = "Plaintext-Marker-93b1";
/** Stored in clear on purpose (a folder name): proves the scan would find the marker if it were there. */
const CONTROL = "controlfolder93b1";

/** Writes the marker into every secret field that must be encrypted, through create, update and a batch. */
async function writeMarkedSecrets(storage: Storage): Promise<Strongroom> {
  const sr = await createStrongroom({ storage, rootKey: generateRootKey() });
  const boot = await sr.admin.bootstrap(anonymous, { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" });
  const admin = await sr.authenticate(boot.identity.credentials.token);
  const { project } = await sr.projects.create(admin, { projectName: "At rest" });
  const where = { projectId: project.id, environment: "dev", secretPath: "/" };
  await sr.folders.create(admin, { projectId: project.id, environment: "dev", name: CONTROL });
  await sr.secrets.create(admin, {
    ...where,
    secretName: `${MARKER}_NAME`,
    secretValue: `value ${MARKER}`,
    secretComment: `comment ${MARKER}`,
    secretMetadata: [{ key: "pin", value: `meta ${MARKER}`, isEncrypted: true }],
  });
  await sr.secrets.update(admin, { ...where, secretName: `${MARKER}_NAME`, secretValue: `second ${MARKER}` });
  await sr.secrets.updateMany(admin, { ...where, mode: "upsert", secrets: [{ secretKey: `${MARKER}_BATCH`, secretValue: `batch ${MARKER}` }] });
  const { secrets } = await sr.secrets.list(admin, where);
  expect(secrets.map((s) => s.secretValue).sort()).toEqual([`batch ${MARKER}`, `second ${MARKER}`]);
  return sr;
}

describe("secrets at rest", () => {
  it("never appear in the SQLite files' bytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-at-rest-"));
    try {
      const sr = await writeMarkedSecrets(await createSqliteStorage({ filename: join(dir, "strongroom.db") }));
      // Scanned while open (the WAL holds recent pages) and again after close (checkpointed).
      const scan = () => Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
      for (const when of ["open", "closed"]) {
        if (when === "closed") await sr.close();
        const bytes = scan();
        expect(bytes.includes(CONTROL), `control marker visible (${when})`).toBe(true);
        expect(bytes.includes(MARKER), `secret marker found (${when})`).toBe(false);
        expect(bytes.includes(Buffer.from(MARKER, "utf16le"))).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never appear in any text column of the secrets tables on PostgreSQL", async (ctx) => {
    const database = await withPostgres();
    if (!database.available) return ctx.skip();
    const client = new pg.Client({ connectionString: database.url });
    try {
      const sr = await writeMarkedSecrets(await createPostgresStorage({ connectionString: database.url }));
      await client.connect();
      const tables = Object.values(tablesByArea.secretManager).map((t) => t.name);
      const { rows: columns } = await client.query<{ table_name: string; column_name: string }>(
        `select table_name, column_name from information_schema.columns
         where table_schema = current_schema() and table_name = any($1) and data_type in ('text', 'character varying', 'json', 'jsonb')`,
        [tables],
      );
      expect(new Set(columns.map((c) => c.table_name))).toEqual(new Set(tables));
      const hits: string[] = [];
      for (const { table_name, column_name } of columns) {
        const sql = `select count(*)::int as n from ${client.escapeIdentifier(table_name)} where ${client.escapeIdentifier(column_name)}::text like $1`;
        const found = async (needle: string) => (await client.query<{ n: number }>(sql, [`%${needle}%`])).rows[0].n > 0;
        if (await found(MARKER)) hits.push(`${table_name}.${column_name}`);
        if (await found(CONTROL)) hits.push(`control:${table_name}.${column_name}`);
      }
      expect(hits).toEqual(["control:secret_folders.name", "control:secret_folders.path"]);
      await sr.close();
    } finally {
      await client.end().catch(() => undefined);
      await database.drop();
    }
  });
});
