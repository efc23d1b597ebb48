/**
 * The peer's data: what a team writing its own secret-read endpoint would keep — access tokens
 * by hash, project memberships with a role's permissions, environments, folders and secrets
 * sealed with AES-256-GCM — on better-sqlite3 (prepared statements) or pg (named statements,
 * i.e. prepared once per connection). No caches: every request runs the three lookups.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import pg from "pg";

export interface SecretRow {
  id: string;
  project_id: string;
  environment: string;
  folder_id: string;
  path: string;
  key: string;
  sealed: Buffer;
  comment: string;
  version: number;
  actor_id: string;
  actor_name: string;
  membership_id: string;
  created_at: string;
  updated_at: string;
}

export interface PeerStore {
  identityOfToken(tokenHash: string): Promise<{ identity_id: string; expires_at: number } | undefined>;
  permissions(projectId: string, identityId: string): Promise<{ membership_id: string; permissions: string } | undefined>;
  secret(projectId: string, environment: string, path: string, key: string): Promise<SecretRow | undefined>;
  close(): Promise<void>;
}

export interface PeerSeed {
  token: string;
  projectId: string;
  key: Buffer;
}

const DDL = [
  "create table access_tokens (token_hash text primary key, identity_id text not null, expires_at bigint not null)",
  "create table roles (slug text primary key, permissions text not null)",
  "create table memberships (id text primary key, project_id text not null, identity_id text not null, role text not null references roles(slug), unique (project_id, identity_id))",
  "create table environments (id text primary key, project_id text not null, slug text not null, unique (project_id, slug))",
  "create table folders (id text primary key, environment_id text not null references environments(id), path text not null, unique (environment_id, path))",
  `create table secrets (id text primary key, folder_id text not null references folders(id), key text not null, sealed BLOB not null,
     comment text not null, version integer not null, actor_id text not null, actor_name text not null,
     created_at text not null, updated_at text not null, unique (folder_id, key))`,
];

const SQL = {
  token: "select identity_id, expires_at from access_tokens where token_hash = $1",
  permissions: "select m.id as membership_id, r.permissions from memberships m join roles r on r.slug = m.role where m.project_id = $1 and m.identity_id = $2",
  secret: `select s.id, e.project_id, e.slug as environment, f.id as folder_id, f.path, s.key, s.sealed, s.comment, s.version,
             s.actor_id, s.actor_name, s.created_at, s.updated_at
           from environments e join folders f on f.environment_id = e.id join secrets s on s.folder_id = f.id
           where e.project_id = $1 and e.slug = $2 and f.path = $3 and s.key = $4`,
};

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** iv ‖ tag ‖ ciphertext. */
export function seal(key: Buffer, plaintext: string): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

export function open(key: Buffer, sealed: Buffer): string {
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return decipher.update(sealed.subarray(28), undefined, "utf8") + decipher.final("utf8");
}

/** Rows for one project with `count` secrets `SECRET_i` in prod at `/`, readable by the token's identity. */
function seedRows(count: number, value: (i: number) => string) {
  const key = randomBytes(32);
  const token = randomBytes(32).toString("base64url");
  const projectId = randomUUID();
  const identityId = randomUUID();
  const environmentId = randomUUID();
  const folderId = randomUUID();
  const now = new Date().toISOString();
  const statements: [string, unknown[]][] = [
    ["insert into access_tokens values ($1, $2, $3)", [hashToken(token), identityId, Date.now() + 86_400_000]],
    ["insert into roles values ($1, $2)", ["member", JSON.stringify([{ action: "read", subject: "secrets", environments: ["*"] }])]],
    ["insert into memberships values ($1, $2, $3, $4)", [randomUUID(), projectId, identityId, "member"]],
    ["insert into environments values ($1, $2, $3)", [environmentId, projectId, "prod"]],
    ["insert into folders values ($1, $2, $3)", [folderId, environmentId, "/"]],
  ];
  for (let i = 0; i < count; i++) {
    statements.push([
      "insert into secrets values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
      [randomUUID(), folderId, `SECRET_${i}`, seal(key, value(i)), "", 1, identityId, "reader", now, now],
    ]);
  }
  return { seed: { key, token, projectId }, statements };
}

export function sqliteStore(filename: string, count: number, value: (i: number) => string): { store: PeerStore; seed: PeerSeed } {
  const db = new Database(filename);
  db.pragma("journal_mode = WAL");
  const { seed, statements } = seedRows(count, value);
  const positional = (sql: string) => sql.replace(/\$\d+/g, "?");
  db.transaction(() => {
    for (const ddl of DDL) db.exec(ddl);
    for (const [sql, params] of statements) db.prepare(positional(sql)).run(...params);
  })();
  const token = db.prepare(positional(SQL.token));
  const permissions = db.prepare(positional(SQL.permissions));
  const secret = db.prepare(positional(SQL.secret));
  return {
    seed,
    store: {
      identityOfToken: async (hash) => token.get(hash) as { identity_id: string; expires_at: number } | undefined,
      permissions: async (project, identity) => permissions.get(project, identity) as { membership_id: string; permissions: string } | undefined,
      secret: async (...args) => secret.get(...args) as SecretRow | undefined,
      close: async () => {
        db.close();
      },
    },
  };
}

export async function postgresStore(url: string, count: number, value: (i: number) => string): Promise<{ store: PeerStore; seed: PeerSeed }> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const { seed, statements } = seedRows(count, value);
  const client = await pool.connect();
  try {
    await client.query("begin");
    for (const ddl of DDL) await client.query(ddl.replace("BLOB", "bytea"));
    for (const [sql, params] of statements) await client.query(sql, params);
    await client.query("commit");
  } finally {
    client.release();
  }
  const one = async <T>(name: string, text: string, values: unknown[]) => (await pool.query({ name, text, values })).rows[0] as T | undefined;
  return {
    seed,
    store: {
      identityOfToken: async (hash) => {
        const row = await one<{ identity_id: string; expires_at: string }>("token", SQL.token, [hash]);
        return row && { identity_id: row.identity_id, expires_at: Number(row.expires_at) };
      },
      permissions: (project, identity) => one("permissions", SQL.permissions, [project, identity]),
      secret: (...args) => one("secret", SQL.secret, args),
      close: () => pool.end(),
    },
  };
}
