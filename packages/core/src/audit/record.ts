import type { RequestContext } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import type { AuditDraft } from "./drafts.js";
import { auditLogService } from "./log.js";
import type { AuditActorType, AuditMetadata, AuditOutcome } from "./schemas.js";

/** An event an area records itself at its audit hook (what only it knows), rather than per operation. */
export interface HookEvent {
  readonly eventType: string;
  readonly outcome: AuditOutcome;
  readonly actor: { readonly type: AuditActorType; readonly id: string | null; readonly name?: string | null };
  readonly orgId: string | null;
  readonly projectId?: string | null;
  readonly environment?: string | null;
  readonly secretPath?: string | null;
  readonly request?: RequestContext;
  /** Names and ids only: never a value, token or credential. */
  readonly metadata: AuditMetadata;
}

/**
 * Records a hook's event: inside a transaction, in it (it commits or rolls back with the change);
 * otherwise through the read queue.
 */
export async function recordHookEvent(ctx: Context, event: HookEvent): Promise<void> {
  const log = ctx.service(auditLogService);
  if (!log.enabled) return;
  const draft: AuditDraft = {
    eventType: event.eventType,
    outcome: event.outcome,
    at: ctx.clock.now().toISOString(),
    actor: { type: event.actor.type, id: event.actor.id, name: event.actor.name ?? null },
    orgId: event.orgId,
    projectId: event.projectId ?? null,
    environment: event.environment ?? null,
    secretPath: event.secretPath ?? null,
    ipAddress: event.request?.ip ?? null,
    userAgent: event.request?.userAgent ?? null,
    metadata: event.metadata,
    secretKeys: [],
    count: 1,
  };
  if (ctx.inTransaction) await log.appendIn(ctx, [draft]);
  else log.enqueue(draft);
}
