/**
 * The Fastify 5 peer: `GET /api/v4/secrets/:secretName` as a user would write it — JSON schemas
 * for the query and the answer (fast-json-stringify), the token looked up by its hash, the
 * membership and its role's permissions, the secret by environment, path and name, AES-GCM
 * decryption, the same answer body as Strongroom's, and Fastify's request log as shipped
 * (pino, two lines per request) into `logFile` through pino's asynchronous destination.
 */
import Fastify, { type FastifyInstance } from "fastify";
import pino from "pino";
import { hashToken, open, type PeerSeed, type PeerStore } from "./secret-store.js";

const str = { type: "string" } as const;
const nullable = { type: ["string", "null"] } as const;

const secretSchema = {
  type: "object",
  properties: {
    id: str, _id: str, workspace: str, workspaceId: str, environment: str, folderId: str, secretPath: str,
    secretKey: str, secretValue: str, secretValueHidden: { type: "boolean" }, secretComment: str,
    secretReminderNote: nullable, secretReminderRepeatDays: { type: ["integer", "null"] },
    skipMultilineEncoding: { type: "boolean" }, version: { type: "integer" }, type: str,
    tags: { type: "array", items: str }, secretMetadata: { type: "array", items: str },
    isRotatedSecret: { type: "boolean" }, rotationId: nullable,
    actor: {
      type: "object",
      properties: { actorId: str, actorType: str, name: str, membershipId: str, groupId: nullable },
    },
    createdAt: str, updatedAt: str,
  },
} as const;

interface Permission {
  action: string;
  subject: string;
  environments: string[];
}

export async function fastifyPeer(store: PeerStore, seed: Pick<PeerSeed, "key">, logFile: string | null): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify(logFile ? { logger: { level: "info", stream: pino.destination({ dest: logFile, sync: false }) } } : { logger: false });
  const fail = (code: number, message: string) => Object.assign(new Error(message), { statusCode: code });

  app.get<{ Params: { secretName: string }; Querystring: { projectId: string; environment: string; secretPath: string } }>(
    "/api/v4/secrets/:secretName",
    {
      schema: {
        params: { type: "object", properties: { secretName: str }, required: ["secretName"] },
        querystring: { type: "object", properties: { projectId: str, environment: str, secretPath: str }, required: ["projectId", "environment", "secretPath"] },
        response: { 200: { type: "object", properties: { secret: secretSchema } } },
      },
    },
    async (request, reply) => {
      const header = request.headers.authorization;
      if (!header?.startsWith("Bearer ")) throw fail(401, "Missing token");
      const token = await store.identityOfToken(hashToken(header.slice(7)));
      if (!token || token.expires_at < Date.now()) throw fail(401, "Invalid token");
      const { projectId, environment, secretPath } = request.query;
      const membership = await store.permissions(projectId, token.identity_id);
      const rules = membership ? (JSON.parse(membership.permissions) as Permission[]) : [];
      const allowed = rules.some((r) => r.action === "read" && r.subject === "secrets" && (r.environments.includes("*") || r.environments.includes(environment)));
      if (!membership || !allowed) throw fail(403, "Not allowed");
      const row = await store.secret(projectId, environment, secretPath, request.params.secretName);
      if (!row) throw fail(404, "Secret not found");
      reply.header("cache-control", "no-store").header("x-content-type-options", "nosniff");
      return {
        secret: {
          id: row.id, _id: row.id, workspace: row.project_id, workspaceId: row.project_id, environment: row.environment,
          folderId: row.folder_id, secretPath: row.path, secretKey: row.key, secretValue: open(seed.key, row.sealed),
          secretValueHidden: false, secretComment: row.comment, secretReminderNote: null, secretReminderRepeatDays: null,
          skipMultilineEncoding: false, version: Number(row.version), type: "shared", tags: [], secretMetadata: [],
          isRotatedSecret: false, rotationId: null,
          actor: { actorId: row.actor_id, actorType: "identity", name: row.actor_name, membershipId: membership.membership_id, groupId: null },
          createdAt: row.created_at, updatedAt: row.updated_at,
        },
      };
    },
  );
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, url };
}
