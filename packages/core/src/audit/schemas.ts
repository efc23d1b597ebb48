import { z } from "zod";
import { isoDateTime } from "../kernel/schemas.js";

/** The shapes of the audit log: one zod schema per shape, used by core, the route, sinks and the verifier. */

export const auditOutcomes = ["success", "denied", "failed"] as const;
export const auditOutcomeSchema = z.enum(auditOutcomes);
export type AuditOutcome = z.infer<typeof auditOutcomeSchema>;

/** Infisical's actor types, plus `agent-proxy`; `unknownUser` is an anonymous caller (no or a bad token). */
export const auditActorTypes = ["user", "identity", "agent-proxy", "unknownUser", "platform"] as const;
export const auditActorTypeSchema = z.enum(auditActorTypes);
export type AuditActorType = z.infer<typeof auditActorTypeSchema>;

/** Event metadata: ids, secret keys, versions, counts — never a value, token, password or credential. */
export const auditMetadataSchema = z.record(z.string(), z.unknown());
export type AuditMetadata = z.infer<typeof auditMetadataSchema>;

/**
 * One audit entry as the API serves it, sinks stream it and `verify` checks it: Infisical's
 * `{actor: {type, metadata}, event: {type, metadata}, ipAddress, userAgent, projectId, createdAt}`
 * plus the chain fields (`chain`, `seq`, `prevHash`, `hash`, `salt`) that make a copy verifiable
 * by anyone holding the instance's public key (see `chain.ts`).
 */
export const auditEntrySchema = z.object({
  id: z.string(),
  chain: z.string().describe("`project:<id>`, `org:<id>` or `instance`"),
  seq: z.number().int(),
  createdAt: isoDateTime,
  orgId: z.string().nullable(),
  projectId: z.string().nullable(),
  environment: z.string().nullable(),
  secretPath: z.string().nullable(),
  actor: z.object({
    type: auditActorTypeSchema,
    metadata: z.object({ id: z.string().nullable(), name: z.string().nullable() }),
  }),
  event: z.object({ type: z.string(), metadata: auditMetadataSchema }),
  outcome: auditOutcomeSchema,
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
  /** 1, or how many anonymous failures from one address within one minute the entry stands for. */
  count: z.number().int(),
  /** Random (shared only by entries with equal metadata, one per distinct metadata the instance keeps), sealed at rest: makes the metadata digest unguessable from a database dump. */
  salt: z.string(),
  prevHash: z.string(),
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** A signed checkpoint as served (and as `verify` takes it). */
export const auditCheckpointSchema = z.object({
  chain: z.string(),
  seq: z.number().int(),
  hash: z.string(),
  createdAt: isoDateTime,
  keyId: z.string(),
  signature: z.string().describe("Ed25519, base64, over checkpointMessage()"),
});
export type AuditCheckpoint = z.infer<typeof auditCheckpointSchema>;

/** The latest head of a chain and the key its checkpoints are signed with. */
export const auditHeadSchema = z.object({
  chain: z.string(),
  seq: z.number().int(),
  hash: z.string(),
  firstSeq: z.number().int(),
  checkpoint: auditCheckpointSchema.nullable(),
  publicKey: z.object({ keyId: z.string(), spki: z.string().describe("SPKI DER, base64") }),
});
export type AuditHead = z.infer<typeof auditHeadSchema>;

/** Filters of GET /api/v1/organization/audit-logs, as Infisical names them. Newest first. */
export const auditQuerySchema = z.object({
  projectId: z.string().optional(),
  environment: z.string().optional(),
  actorType: auditActorTypeSchema.optional(),
  /** An actor id (user, identity or proxy id). */
  actor: z.string().optional(),
  eventType: z.union([z.string(), z.array(z.string())]).optional(),
  secretPath: z.string().optional(),
  secretKey: z.string().optional(),
  startDate: isoDateTime.optional(),
  endDate: isoDateTime.optional(),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(20),
});
export type AuditQuery = z.input<typeof auditQuerySchema>;

/** What `verify` answers: the chain fits, or the first entry that does not and why. */
export const auditVerifyResultSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), chain: z.string(), checked: z.number().int(), head: z.object({ seq: z.number().int(), hash: z.string() }).nullable() }),
  z.object({
    ok: z.literal(false),
    chain: z.string(),
    checked: z.number().int(),
    firstBad: z.object({
      seq: z.number().int(),
      id: z.string().nullable(),
      reason: z.enum(["hash-mismatch", "broken-link", "missing", "out-of-order", "unreadable", "bad-signature", "behind-head", "beyond-head"]),
    }),
  }),
]);
export type AuditVerifyResult = z.infer<typeof auditVerifyResultSchema>;
