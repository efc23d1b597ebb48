import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { DEFAULT_KEY_ALGORITHM, type KeyAlgorithm, assertSignatureCompatible } from "../../x509/algorithms.js";
import { authorityRepository } from "../authorities/repository.js";
import { blankToUndefined } from "../query-fields.js";
import type { ProfileDefaults } from "../schemas.js";
import { type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import type { ProfileRow } from "../tables.js";
import { profileRepository } from "./repository.js";
import {
  createProfileInput,
  listProfilesInput,
  profileBySlugInput,
  profileListOutput,
  profileOutput,
  profileRefInput,
  updateProfileInput,
} from "./schemas.js";
import { toProfileObject } from "./view.js";

/** `issuerType: ca` needs a CA of the same project; `self-signed` takes none. Returns the CA's key algorithm. */
async function issuingCaKey(ctx: Context, projectId: string, issuerType: "ca" | "self-signed", caId: string | null | undefined) {
  if (issuerType === "self-signed") {
    if (caId) throw new BadRequestError("A self-signed profile takes no caId");
    return undefined;
  }
  if (!caId) throw new BadRequestError("issuerType ca requires caId");
  const ca = await ctx.repo(authorityRepository).ofProject(projectId, caId);
  if (!ca) throw new BadRequestError("caId does not name a CA of this project");
  return ca.keyAlgorithm as KeyAlgorithm;
}

/** A default signature algorithm the signing key could never use is refused now rather than at every issuance. */
function checkDefaultsAgainstSigner(defaults: ProfileDefaults, caKey: KeyAlgorithm | undefined): void {
  if (!defaults.signatureAlgorithm) return;
  assertSignatureCompatible(defaults.signatureAlgorithm, caKey ?? defaults.keyAlgorithm ?? DEFAULT_KEY_ALGORITHM);
}

async function assertSlugFree(ctx: Context, projectId: string, slug: string): Promise<void> {
  if (await ctx.repo(profileRepository).bySlug(projectId, slug)) {
    throw new BadRequestError(`A certificate profile with slug '${slug}' already exists in this project`);
  }
}

const profile = (action: CertificateAction) =>
  certificateRecord("Certificate profile", "certificate-profiles", action, (ctx, input: { id: string }) => ctx.repo(profileRepository).get(input.id));

export const certificateProfileOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a certificate profile: the issuer (a CA of the project, or self-signed) and the defaults every issuance starts from",
    audience: "principal",
    input: createProfileInput,
    output: profileOutput,
    use: certificateProject("certificate-profiles", "create"),
    async run(ctx, _actor, input, { project }) {
      const caKey = await issuingCaKey(ctx, project.id, input.issuerType, input.caId);
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
      await ctx.repo(profileRepository).insert(row);
      return { certificateProfile: toProfileObject(row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the certificate profiles of a project by slug; `search` matches slug or description, case-insensitively",
    audience: "principal",
    input: listProfilesInput,
    output: profileListOutput,
    use: certificateProject("certificate-profiles", "read"),
    async run(ctx, _actor, input, { project }) {
      const { rows, totalCount } = await ctx.repo(profileRepository).page(project.id, blankToUndefined(input.search), input);
      return { certificateProfiles: rows.map(toProfileObject), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a certificate profile",
    audience: "principal",
    input: profileRefInput,
    output: profileOutput,
    use: profile("read"),
    async run(_ctx, _actor, _input, { record }) {
      return { certificateProfile: toProfileObject(record) };
    },
  }),

  getBySlug: defineOperation({
    name: "getBySlug",
    summary: "Get a certificate profile by its slug in a project",
    audience: "principal",
    input: profileBySlugInput,
    output: profileOutput,
    use: certificateProject("certificate-profiles", "read"),
    async run(ctx, _actor, input, { project }) {
      const row = await ctx.repo(profileRepository).bySlug(project.id, input.slug);
      if (!row) throw new NotFoundError("Certificate profile not found");
      return { certificateProfile: toProfileObject(row) };
    },
  }),

  update: defineOperation({
    name: "update",
    summary: "Update a certificate profile's slug, description, external configs or defaults (`defaults` replaces the whole object)",
    audience: "principal",
    input: updateProfileInput,
    output: profileOutput,
    use: profile("edit"),
    async run(ctx, _actor, input, { record: row }) {
      if (input.defaults) {
        const ca = row.caId ? await ctx.repo(authorityRepository).get(row.caId) : undefined;
        checkDefaultsAgainstSigner(input.defaults, ca?.keyAlgorithm as KeyAlgorithm | undefined);
      }
      if (input.slug !== undefined && input.slug !== row.slug) await assertSlugFree(ctx, row.projectId, input.slug);
      const patch: Partial<ProfileRow> = {
        ...(input.slug !== undefined ? { slug: input.slug } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.externalConfigs !== undefined ? { externalConfigs: input.externalConfigs } : {}),
        ...(input.defaults !== undefined ? { defaults: input.defaults } : {}),
        updatedAt: ctx.clock.now().toISOString(),
      };
      await ctx.repo(profileRepository).update(row.id, patch);
      return { certificateProfile: toProfileObject({ ...row, ...patch }) };
    },
  }),

  delete: defineOperation({
    name: "delete",
    summary: "Delete a certificate profile; certificates issued from it are kept, no longer linked to a profile",
    audience: "principal",
    input: profileRefInput,
    output: profileOutput,
    use: profile("delete"),
    async run(ctx, _actor, _input, { record }) {
      await ctx.repo(profileRepository).remove(record);
      return { certificateProfile: toProfileObject(record) };
    },
  }),
};
