import type { Context } from "../../kernel/context.js";
import { newId, randomAlphanumeric, slugify } from "../../kernel/ids.js";
import type { TenancyRow } from "../tables.js";
import type { AppStorage as Storage } from "../../schema.js";

/** Creates an organization with its data key; used by bootstrap and by organizations.create. */
export async function insertOrganization(ctx: Context, tx: Storage, name: string): Promise<TenancyRow<"organizations">> {
  const now = ctx.clock.now().toISOString();
  const base = slugify(name, 48);
  // A taken slug gets a random suffix; the unique index stays the final guard against races.
  const taken = await tx.tables.organizations.findOne({ slug: base });
  const org = {
    id: newId(),
    name,
    slug: taken ? `${base}-${randomAlphanumeric(6).toLowerCase()}` : base,
    createdAt: now,
    updatedAt: now,
  };
  await tx.tables.organizations.insert(org);
  await ctx.keys.createDataKey(tx, { orgId: org.id }, "organization", ctx.clock.now());
  return org;
}
