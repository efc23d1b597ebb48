import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { AccessRow } from "../../access/tables.js";
import type { Where } from "../../storage/table.js";
import { type KeyAlgorithm, assertSignatureCompatible } from "../../x509/algorithms.js";
import { DEFAULT_KEY_ALGORITHM } from "./merge.js";
import { type ProfileRow, toProfileObject } from "./repository.js";
import {
  createProfileInput,
  listProfilesInput,
  profileListOutput,
  profileOutput,
  profileRefInput,
  updateProfileInput,
} from "./schemas.js";
import { openCertificateProject, openCertificateRecord } from "../project-scope.js";
import { blankToUndefined } from "../query-fields.js";
import type { ProfileDefaults } from "../schemas.js";

const NOT_FOUND = "Certificate profile";

/** `issuerType: ca` needs a CA of the same project; `self-signed` takes none. Returns the CA's key algorithm. */
async function issuingCaKey(ctx: Context, project: AccessRow<"projects">, issuerType: "ca" | "self-signed", caId: string | null | undefined) {
  if (issuerType === "self-signed") {
    if (caId) throw new BadRequestError("A self-signed profile takes no caId");
    return undefined;
  }
  if (!caId) throw new BadRequestError("issuerType ca requires caId");
  const ca = await ctx.storage.tables.certificateAuthorities.get(caId);
  if (!ca || ca.projectId !== project.id) throw new BadRequestError("caId does not name a CA of this project");
  return ca.keyAlgorithm as KeyAlgorithm;
}

/** A default signature algorithm the signing key could never use is refused now rather than at every issuance. */
function checkDefaultsAgainstSigner(defaults: ProfileDefaults, caKey: KeyAlgorithm | undefined): void {
  if (!defaults.signatureAlgorithm) return;
  assertSignatureCompatible(defaults.signatureAlgorithm, caKey ?? defaults.keyAlgorithm ?? DEFAULT_KEY_ALGORITHM);
}

async function assertSlugFree(ctx: Context, projectId: string, slug: string): Promise<void> {
  if (await ctx.storage.tables.certificateProfiles.findOne({ projectId, slug })) {
    throw new BadRequestError(`A certificate profile with slug '${slug}' already exists in this project`);
  }
}

async function openProfile(ctx: Context, actor: Actor, id: string, action: "read" | "edit" | "delete") {
  const row = await ctx.storage.tables.certificateProfiles.get(id);
  return openCertificateRecord(ctx, actor, row, NOT_FOUND, "certificate-profiles", action);
}

export const certificateProfileOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a certificate profile: the issuer (a CA of the project, or self-signed) and the defaults every issuance starts from",
    audience: "principal",
    input: createProfileInput,
    output: profileOutput,
    async run(ctx, actor, input) {
      const { project } = await openCertificateProject(ctx, actor, input.projectId, "certificate-profiles", "create");
      const caKey = await issuingCaKey(ctx, project, input.issuerType, input.caId);
      checkDefaultsAgainstSigner(input.defaults, caKey);
      await assertSlugFree(ctx, project.id, input.slug);
      const now = ctx.clock.now().toISOString();
      const row: ProfileRow = {
        id: newId(),
        projectId: project.id,
        slug: input.slug,
        description: input.description,
        issuerType: input.issuerType,
        caId: input.issuerType === "ca" ? (input.caId ?? null) : null,
        enrollmentType: input.enrollmentType,
        defaults: input.defaults,
        externalConfigs: input.externalConfigs ?? null,
        createdAt: now,
        updatedAt: now,
      };
      await ctx.storage.tables.certificateProfiles.insert(row);
      return { certificateProfile: toProfileObject(row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the certificate profiles of a project by slug; `search` matches slug or description, case-insensitively",
    audience: "principal",
    input: listProfilesInput,
    output: profileListOutput,
    async run(ctx, actor, input) {
      const { project } = await openCertificateProject(ctx, actor, input.projectId, "certificate-profiles", "read");
      const search = blankToUndefined(input.search);
      const where: Where<ProfileRow> = {
        projectId: project.id,
        ...(search ? { $or: [{ slug: { contains: search } }, { description: { contains: search } }] } : {}),
      };
      const table = ctx.storage.tables.certificateProfiles;
      const [rows, totalCount] = await Promise.all([
        table.find(where, { orderBy: [["slug", "asc"]], offset: input.offset, limit: input.limit }),
        table.count(where),
      ]);
      return { certificateProfiles: rows.map(toProfileObject), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a certificate profile",
    audience: "principal",
    input: profileRefInput,
    output: profileOutput,
    async run(ctx, actor, input) {
      const { row } = await openProfile(ctx, actor, input.id, "read");
      return { certificateProfile: toProfileObject(row) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a certificate profile's slug, description, external configs or defaults (`defaults` replaces the whole object)",
    audience: "principal",
    input: updateProfileInput,
    output: profileOutput,
    async run(ctx, actor, input) {
      const { row } = await openProfile(ctx, actor, input.id, "edit");
      if (input.defaults) {
        const caKey = row.caId ? ((await ctx.storage.tables.certificateAuthorities.get(row.caId))?.keyAlgorithm as KeyAlgorithm | undefined) : undefined;
        checkDefaultsAgainstSigner(input.defaults, caKey);
      }
      if (input.slug !== undefined && input.slug !== row.slug) await assertSlugFree(ctx, row.projectId, input.slug);
      const patch: Partial<ProfileRow> = {
        ...(input.slug !== undefined ? { slug: input.slug } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.externalConfigs !== undefined ? { externalConfigs: input.externalConfigs } : {}),
        ...(input.defaults !== undefined ? { defaults: input.defaults } : {}),
        updatedAt: ctx.clock.now().toISOString(),
      };
      await ctx.storage.tables.certificateProfiles.update({ id: row.id }, patch);
      return { certificateProfile: toProfileObject({ ...row, ...patch }) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a certificate profile; certificates issued from it are kept, no longer linked to a profile",
    audience: "principal",
    input: profileRefInput,
    output: profileOutput,
    async run(ctx, actor, input) {
      const { row } = await openProfile(ctx, actor, input.id, "delete");
      await ctx.storage.transaction(async (tx) => {
        await tx.tables.certificates.update({ profileId: row.id }, { profileId: null });
        await tx.tables.certificateProfiles.delete({ id: row.id });
      });
      return { certificateProfile: toProfileObject(row) };
    },
  }),
};
