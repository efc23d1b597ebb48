import { z } from "zod";
import { loadProjectAccess } from "../../access/project-access.js";
import { requireOrgRole, resolveActingOrg } from "../../access/org-access.js";
import { actorPrincipal } from "../../kernel/actor.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId, randomAlphanumeric, slugify } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import { createProjectInput, PROJECT_TEMPLATES, projectSchema } from "./schemas.js";
import { toProject } from "./view.js";

const DEFAULT_ENVIRONMENTS = [
  { name: "Development", slug: "dev" },
  { name: "Staging", slug: "staging" },
  { name: "Production", slug: "prod" },
];

export const projectOperations = {
  create: defineOperation({
    name: "create",
    summary: "Create a project; the caller becomes its admin",
    audience: "principal",
    input: createProjectInput,
    output: z.object({ project: projectSchema }),
    async run(ctx, actor, input) {
      const orgId = await resolveActingOrg(ctx, actor, input.organizationId);
      await requireOrgRole(ctx, actor, orgId, ["admin", "member"]);
      if (!(PROJECT_TEMPLATES as readonly string[]).includes(input.template)) {
        throw new BadRequestError(`Unknown project template '${input.template}'`);
      }
      return ctx.storage.transaction(async (tx) => {
        const tables = tx.tables;
        let slug = input.slug;
        if (slug) {
          if (await tables.projects.findOne({ orgId, slug })) throw new BadRequestError(`A project with slug '${slug}' already exists`);
        } else {
          slug = `${slugify(input.projectName, 48)}-${randomAlphanumeric(6).toLowerCase()}`.replace(/^-/, "");
          if (slug.length < 5) slug = `project-${slug}`;
        }
        const nowDate = ctx.clock.now();
        const now = nowDate.toISOString();
        const id = newId();
        let secretKeyId: string;
        if (input.kmsKeyId) {
          const key = await tables.kmsKeys.findOne({ id: input.kmsKeyId, orgId });
          if (!key) throw new BadRequestError("Unknown kmsKeyId");
          secretKeyId = key.id;
        } else {
          secretKeyId = await ctx.keys.createDataKey(tx, { orgId, projectId: id }, "secret-manager", nowDate);
        }
        const certificateKeyId = await ctx.keys.createDataKey(tx, { orgId, projectId: id }, "certificates", nowDate);
        const project = {
          id,
          orgId,
          name: input.projectName,
          slug,
          type: input.type,
          description: input.projectDescription ?? "",
          defaultProduct: input.type,
          upgradeStatus: null,
          template: input.template,
          kmsCertificateKeyId: certificateKeyId,
          kmsSecretManagerKeyId: secretKeyId,
          autoCapitalization: false,
          hasDeleteProtection: input.hasDeleteProtection,
          secretSharing: true,
          showSnapshotsLegacy: false,
          enforceEncryptedSecretManagerSecretMetadata: false,
          secretBlindIndexEnabled: true,
          isLegacyAdditionalPrivilegesEnabled: false,
          version: 3,
          pitVersionLimit: 10,
          auditLogsRetentionDays: 30,
          secretDetectionIgnoreValues: [] as string[],
          createdAt: now,
          updatedAt: now,
        };
        await tables.projects.insert(project);
        if (input.shouldCreateDefaultEnvs) {
          await tables.environments.insertMany(
            DEFAULT_ENVIRONMENTS.map((env, position) => ({
              id: newId(),
              projectId: id,
              name: env.name,
              slug: env.slug,
              position,
              deletedAt: null,
              deleteAfter: null,
              deletedBy: null,
              createdAt: now,
              updatedAt: now,
            })),
          );
        }
        const principal = actorPrincipal(actor);
        if (principal) {
          const membershipId = newId();
          await tables.projectMemberships.insert({
            id: membershipId,
            projectId: id,
            userId: principal.kind === "user" ? principal.id : null,
            identityId: principal.kind === "identity" ? principal.id : null,
            createdAt: now,
            updatedAt: now,
          });
          await tables.membershipRoles.insert({
            id: newId(),
            membershipId,
            role: "admin",
            customRoleId: null,
            isTemporary: false,
            temporaryMode: null,
            temporaryRange: null,
            temporaryAccessStartTime: null,
            temporaryAccessEndTime: null,
            createdAt: now,
            updatedAt: now,
          });
        }
        return { project: await toProject(ctx, tx, project) };
      });
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a project",
    audience: "principal",
    input: z.object({ projectId: z.string().min(1) }),
    output: z.object({ project: projectSchema }),
    async run(ctx, actor, input) {
      const access = await loadProjectAccess(ctx, actor, { projectId: input.projectId });
      access.requireMembership();
      return { project: await toProject(ctx, ctx.storage, access.project) };
    },
  }),
};
