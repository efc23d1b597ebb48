import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { anonymous, createStrongroom, generateRootKey, type Strongroom, type StrongroomOptions } from "@strongroom/core";
import type { StrongroomStorage } from "@strongroom/core/storage";
import { createPostgresStorage } from "@strongroom/storage-postgres";
import { withPostgres } from "@strongroom/storage-postgres/testing";
import { createSqliteStorage } from "@strongroom/storage-sqlite";
import type { Backend } from "../../src/testing/harness.js";

/**
 * A database on a real backend with a side door: `sql` runs statements on its own connection, as
 * someone with access to the database (not through Strongroom) would. Placeholders are `?`.
 */
export interface AuditBackend {
  readonly dir: string | undefined;
  open(): Promise<StrongroomStorage>;
  sql<R = Record<string, unknown>>(text: string, params?: unknown[]): Promise<R[]>;
  /** Creates (`true`) or drops a trigger that makes every insert into audit_entries fail. */
  refuseAuditInserts(on: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function auditBackend(backend: Backend): Promise<AuditBackend> {
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "strongroom-audit-"));
    const filename = join(dir, "strongroom.db");
    let side: Database.Database | undefined;
    const db = () => (side ??= new Database(filename));
    return {
      dir,
      open: () => createSqliteStorage({ filename }),
      async sql(text, params = []) {
        const statement = db().prepare(text);
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as never;
      },
      async refuseAuditInserts(on) {
        db().exec(on ? `CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_entries BEGIN SELECT RAISE(ABORT, 'audit insert refused'); END;` : `DROP TRIGGER refuse_audit`);
      },
      async close() {
        side?.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await withPostgres();
  if (!database.available) throw new Error("PostgreSQL unavailable");
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  return {
    dir: undefined,
    open: () => createPostgresStorage({ connectionString: database.url }),
    async sql(text, params = []) {
      let i = 0;
      return (await client.query(text.replace(/\?/g, () => `$${++i}`), params)).rows as never;
    },
    async refuseAuditInserts(on) {
      await client.query(
        on
          ? `create function refuse_audit() returns trigger language plpgsql as $$ begin raise exception 'audit insert refused'; end $$;
             create trigger refuse_audit before insert on audit_entries for each row execute function refuse_audit();`
          : `drop trigger refuse_audit on audit_entries; drop function refuse_audit();`,
      );
    },
    async close() {
      await client.end();
      await database.drop();
    },
  };
}

export interface AuditScene {
  sr: Strongroom;
  admin: Awaited<ReturnType<Strongroom["authenticate"]>>;
  adminIdentityId: string;
  orgId: string;
  projectId: string;
  where: { projectId: string; environment: string; secretPath: string };
}

/** An instance with an organization, an admin identity and a project. */
export async function auditScene(storage: StrongroomStorage, options: Partial<StrongroomOptions> = {}, rootKey = generateRootKey()): Promise<AuditScene> {
  const sr = await createStrongroom({ storage, rootKey, ...options });
  const boot = await sr.admin.bootstrap(anonymous, { email: "owner@acme.test", password: "correct horse battery", organization: "Acme" });
  const admin = await sr.authenticate(boot.identity.credentials.token, { ip: "203.0.113.7", userAgent: "audit-test" });
  const { project } = await sr.projects.create(admin, { projectName: "Audited" });
  return {
    sr,
    admin,
    adminIdentityId: boot.identity.id,
    orgId: boot.organization.id,
    projectId: project.id,
    where: { projectId: project.id, environment: "dev", secretPath: "/" },
  };
}
