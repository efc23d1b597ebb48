import type { Context } from "../../kernel/context.js";

/**
 * AUDIT HOOK — the single call site for credential resolves. Every `resolve` a proxy makes passes
 * through here with its outcome, brokered or not. The audit log does not exist yet; when it does
 * (DESIGN.md §11 "Audit"), it records these entries in the proxy's organization chain from here,
 * and nowhere else. Until then this deliberately does nothing.
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
}

export async function auditCredentialResolve(_ctx: Context, _entry: ResolveAuditEntry): Promise<void> {}
