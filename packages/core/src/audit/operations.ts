import { z } from "zod";
import { orgRoleOf, resolveActingOrg } from "../access/org-access.js";
import { accessRepository } from "../access/repository.js";
import { openProjectScope } from "../access/scope.js";
import type { ProjectRow } from "../access/tables.js";
import type { Actor } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import { NotFoundError, PermissionDeniedError } from "../kernel/errors.js";
import { defineOperation } from "../kernel/operation.js";
import { headOf } from "./control.js";
import { auditLogService } from "./log.js";
import { auditRepository } from "./repository.js";
import { toEntry } from "./rows.js";
import { auditEntrySchema, auditHeadSchema, auditQuerySchema } from "./schemas.js";

/**
 * Who reads the log: organization admins all of their organization's entries; project members
 * holding `audit-logs` `read` their project's. The instance chain is for the embedder only.
 */
async function authorizeRead(ctx: Context, actor: Actor, organizationId: string | undefined, projectId: string | undefined): Promise<{ orgId: string; project?: ProjectRow }> {
  const orgId = await resolveActingOrg(ctx, actor, organizationId);
  const role = await orgRoleOf(ctx, actor, orgId);
  if (!role) throw new NotFoundError("Organization not found");
  if (projectId === undefined) {
    if (role !== "admin") throw new PermissionDeniedError("Only organization admins read the organization's audit log; pass projectId to read a project's");
    return { orgId };
  }
  if (role === "admin") {
    const project = await ctx.repo(accessRepository).projectById(projectId);
    if (!project || project.orgId !== orgId) throw new NotFoundError("Project not found");
    return { orgId, project };
  }
  const scope = await openProjectScope(ctx, actor, { projectId }, { project: (i) => i, permission: { action: "read", subject: "audit-logs" } });
  if (scope.project.orgId !== orgId) throw new NotFoundError("Project not found");
  return { orgId, project: scope.project };
}

const queryInput = auditQuerySchema.extend({ organizationId: z.string().optional() });
const headInput = z.object({
  chain: z.string().describe("`project:<id>` or `org:<id>`"),
  organizationId: z.string().optional(),
});

export const auditOperations = {
  query: defineOperation({
    name: "query",
    summary: "Audit log entries of the organization (admins) or of one project (audit-logs read), newest first, with Infisical's filters",
    audience: "principal",
    input: queryInput,
    output: z.object({ auditLogs: z.array(auditEntrySchema) }),
    use: (ctx, actor, input) => authorizeRead(ctx, actor, input.organizationId, input.projectId),
    async run(ctx, _actor, input, scope) {
      const log = ctx.service(auditLogService);
      const eventTypes = input.eventType === undefined ? undefined : Array.isArray(input.eventType) ? input.eventType : [input.eventType];
      const rows = await ctx.repo(auditRepository).find(
        {
          orgId: scope.orgId,
          projectId: scope.project?.id,
          environment: input.environment,
          actorType: input.actorType,
          actorId: input.actor,
          eventTypes,
          secretPath: input.secretPath,
          secretKeyIndex: input.secretKey === undefined ? undefined : log.keys.blindIndex(input.secretKey),
          startDate: input.startDate,
          endDate: input.endDate,
        },
        input.offset,
        input.limit,
      );
      return { auditLogs: rows.map((row) => toEntry(row, log.keys)) };
    },
  }),
  head: defineOperation({
    name: "head",
    summary: "The latest head of an audit chain, its newest signed checkpoint and the public key that signs checkpoints",
    audience: "principal",
    input: headInput,
    output: auditHeadSchema,
    use: async (ctx, actor, input) => {
      const [kind, id] = input.chain.split(/:(.*)/s);
      if (kind === "project" && id) return authorizeRead(ctx, actor, input.organizationId, id);
      if (kind === "org" && id) {
        const read = await authorizeRead(ctx, actor, input.organizationId, undefined);
        if (read.orgId !== id) throw new NotFoundError("Audit chain not found");
        return read;
      }
      throw new NotFoundError("Audit chain not found");
    },
    run: (ctx, _actor, input) => headOf(ctx, ctx.service(auditLogService), input.chain),
  }),
};
