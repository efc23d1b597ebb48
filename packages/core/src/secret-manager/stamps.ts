import { createHash } from "node:crypto";
import { accessFingerprint } from "../access/fingerprint.js";
import type { ProjectAccess } from "../access/project-access.js";
import { accessTables } from "../access/tables.js";
import { defineRepository } from "../kernel/context.js";
import { newId } from "../kernel/ids.js";
import { tablesOf, type Storage } from "../storage/table.js";
import { secretStamps } from "./tables.js";

/**
 * Project stamps: what a list's ETag is made of instead of its content (DESIGN.md "Lists and
 * ETags"). Every table a list answer is read from, imports' and references' sources included
 * (they are in the same project): a write to any of them moves its project's stamp.
 */
export const STAMPED_TABLES = ["secrets", "secretFolders", "secretImports", "secretTags", "environments"] as const;

const stampTables = { secretStamps, projects: accessTables.projects };

/** Gives each project a fresh stamp, inside the transaction that wrote its rows (assembled by `stampWrites`). */
export async function moveSecretStamps(tx: Storage, projectIds: ReadonlySet<string>): Promise<void> {
  const t = tablesOf(tx as Storage<typeof stampTables>, stampTables);
  // In one order, so two transactions stamping the same projects never wait on each other crosswise.
  for (const id of [...projectIds].sort()) {
    const stamp = newId();
    if ((await t.secretStamps.update({ id }, { stamp })) === 1) continue;
    // The project's first stamp: its row lock makes concurrent first writers take turns, so the
    // later ones find the row the first inserted instead of inserting it again.
    const [project] = await t.projects.find({ id }, { forUpdate: true });
    // Deleted by this very transaction (its rows went with it): nothing left to stamp.
    if (!project) continue;
    if ((await t.secretStamps.update({ id }, { stamp })) === 0) await t.secretStamps.insert({ id, stamp });
  }
}

export const secretStampRepository = defineRepository("secret-manager.stamps", (ctx) => {
  const t = tablesOf(ctx.storage, { secretStamps });
  return {
    /** The project's current stamp; "" before its first write. Always read from storage: other nodes write too. */
    of: async (projectId: string): Promise<string> => (await t.secretStamps.get(projectId))?.stamp ?? "",
  };
});

/**
 * A list answer's revision: the project's stamp, the environment as the request named it, what
 * the caller may do (its personal overrides too) and the whole input. Equal revisions mean equal
 * answers; a write anywhere in the project or a change of the caller's rules gives a new one.
 */
export function listRevision(stamp: string, env: { id: string; slug: string }, access: ProjectAccess, principalId: string | undefined, input: unknown): string {
  const parts = [stamp, env.id, env.slug, accessFingerprint(access), principalId ?? "", JSON.stringify(input)];
  return createHash("sha256").update(parts.join("\u0000")).digest("base64url");
}
