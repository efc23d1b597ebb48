/**
 * `@strongroom/storage-postgres/testing`: throwaway databases for tests, and PostgreSQL as a
 * `forEachStore` backend.
 */
import { randomBytes } from "node:crypto";
import type { TestStore } from "@strongroom/core/testing";
import pg from "pg";
import { createPostgresStorage } from "./index.js";

/** The server tests create their databases on. */
export const PG_URL = process.env.PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface TestDatabase {
  /** False when no server answered (and we are not in CI); skip the PostgreSQL tests then. */
  available: boolean;
  /** Connection string of the new, empty database. */
  url: string;
  /** Ends every session on the database and drops it; safe to call twice. */
  drop(): Promise<void>;
}

let noticeShown = false;

/** Whether the server at PG_URL answers; without one, a notice (once) — or in CI, a failure. */
async function serverAnswers(): Promise<boolean> {
  try {
    await asAdmin((admin) => admin.query("select 1"));
    return true;
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    if (process.env.CI === "true") {
      throw new Error(`PostgreSQL is required in CI, but ${redacted(PG_URL)} did not answer: ${(error as Error).message}`);
    }
    if (!noticeShown) console.warn(`PostgreSQL not reachable at ${redacted(PG_URL)}: skipping PostgreSQL tests`);
    noticeShown = true;
    return false;
  }
}

/**
 * A throwaway database `strongroom_t_<random>` on the server at PG_URL. Without a server the
 * tests are skipped with a one-line notice, except in CI (`CI=true`), where that is a failure.
 */
export async function withPostgres(): Promise<TestDatabase> {
  const name = `strongroom_t_${randomBytes(6).toString("hex")}`;
  try {
    await asAdmin((admin) => admin.query(`create database ${admin.escapeIdentifier(name)}`));
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    if (process.env.CI === "true") {
      throw new Error(`PostgreSQL is required in CI, but ${redacted(PG_URL)} did not answer: ${(error as Error).message}`);
    }
    if (!noticeShown) console.warn(`PostgreSQL not reachable at ${redacted(PG_URL)}: skipping PostgreSQL tests`);
    noticeShown = true;
    return { available: false, url: "", drop: async () => undefined };
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { available: true, url: url.toString(), drop: () => dropDatabase(name) };
}

/** Ends every session on the database except the caller's (e.g. to simulate a server restart). */
export async function terminateSessions(url: string, applicationName?: string): Promise<number> {
  const database = new URL(url).pathname.slice(1);
  return asAdmin(async (admin) => {
    const { rowCount } = await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = $1 and pid <> pg_backend_pid() and ($2::text is null or application_name = $2)`,
      [database, applicationName ?? null],
    );
    return rowCount ?? 0;
  });
}

/** Number of sessions on the database, optionally only those with the given application name. */
export async function countSessions(url: string, applicationName?: string): Promise<number> {
  const database = new URL(url).pathname.slice(1);
  return asAdmin(async (admin) => {
    const { rows } = await admin.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity
       where datname = $1 and pid <> pg_backend_pid() and ($2::text is null or application_name = $2)`,
      [database, applicationName ?? null],
    );
    return Number(rows[0].n);
  });
}

async function dropDatabase(name: string): Promise<void> {
  await asAdmin(async (admin) => {
    await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [name]);
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)}`);
  });
}

async function asAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3_000 });
  admin.on("error", () => undefined);
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

function isUnreachable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return ["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT", "ECONNRESET"].includes(code ?? "") || /timeout/i.test(message ?? "");
}

const redacted = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");

/**
 * PostgreSQL for `forEachStore`: each `open` makes a throwaway database, dropped by `cleanup`.
 * Probes the server once; without one it is unavailable (a failure in CI, see `withPostgres`).
 */
export async function postgresTestStore(): Promise<TestStore> {
  const made: TestDatabase[] = [];
  return {
    name: "postgres",
    available: await serverAnswers(),
    async open() {
      const database = await withPostgres();
      made.push(database);
      return createPostgresStorage({ connectionString: database.url });
    },
    async cleanup() {
      await Promise.all(made.splice(0).map((database) => database.drop()));
    },
  };
}
