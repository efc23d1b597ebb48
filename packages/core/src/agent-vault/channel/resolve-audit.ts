import { recordHookEvent } from "../../audit/record.js";
import type { RequestContext } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";

/**
 * AUDIT HOOK — the single call site for credential resolves. Every `resolve` a proxy makes passes
 * through here with its outcome, brokered or not, and is recorded in the proxy's organization
 * chain (DESIGN.md §11 "Audit") from here and nowhere else. A resolve for a session this proxy
 * does not serve ends in a 404, which the operation's own entry records.
 */
export interface ResolveAuditEntry {
  readonly proxyId: string;
  readonly orgId: string;
  /** Null when the token opened no session this proxy serves. */
  readonly sessionId: string | null;
  readonly host: string;
  readonly port: number;
  readonly tls: boolean;
  readonly outcome: "broker" | "passthrough" | "deny" | "session-not-served";
  /** The brokered service; its credential values are never part of an entry. */
  readonly serviceId?: string;
  /** Where the proxy's call came from. */
  readonly request?: RequestContext;
}

export async function auditCredentialResolve(ctx: Context, entry: ResolveAuditEntry): Promise<void> {
  if (entry.outcome === "session-not-served") return;
  await recordHookEvent(ctx, {
    eventType: "agent-proxy-resolve-credential",
    outcome: entry.outcome === "deny" ? "denied" : "success",
    actor: { type: "agent-proxy", id: entry.proxyId },
    orgId: entry.orgId,
    request: entry.request,
    metadata: {
      decision: entry.outcome,
      sessionId: entry.sessionId,
      host: entry.host,
      port: entry.port,
      tls: entry.tls,
      ...(entry.serviceId ? { serviceId: entry.serviceId } : {}),
    },
  });
}
