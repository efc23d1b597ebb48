import { z } from "zod";
import { NotFoundError, UnauthorizedError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { extendAccessToken, issueAccessToken, revokeTokensOf } from "../../tenancy/auth/tokens.js";
import { consumeEnrollmentToken, findLiveEnrollmentToken } from "../proxies/enrollment-tokens.js";
import { proxyRepository } from "../proxies/repository.js";
import { readRootCa } from "../proxies/root-ca.js";
import { toSettings } from "../proxies/view.js";
import { liveSessionByToken } from "../sessions/live.js";
import { proxyState } from "./proxy-state.js";
import { auditCredentialResolve } from "./resolve-audit.js";
import { enrollInput, enrollOutput, heartbeatOutput, proxyStateOutput, resolveInput, resolveOutput } from "./schemas.js";
import { callingProxyScope } from "./scope.js";
import { servesSession } from "./served-sessions.js";
import { resolveTraffic } from "./traffic-resolution.js";

/**
 * The endpoints an agent proxy itself calls. Enrollment is open (the one-time token is the
 * credential); everything else takes the proxy's own access token, which no other endpoint accepts.
 */

/**
 * A proxy token stays valid this long after the proxy's last heartbeat: a running proxy never has
 * to re-enroll, and the token of one that went away lapses on its own.
 */
export const PROXY_TOKEN_IDLE_TTL_SECONDS = 30 * 24 * 60 * 60;

export const agentProxyChannelOperations = {
  enroll: defineOperation({
    name: "enroll",
    summary:
      "Enroll an agent proxy with its one-time enrollment token and the PEM of its own CA (which must be a CA and unexpired). " +
      "Returns the proxy's access token, shown only here. An unknown, used or expired token is 401; an unacceptable CA is 400 " +
      "and leaves the token unused. Enrolling again revokes the proxy's earlier access tokens.",
    audience: "public",
    input: enrollInput,
    output: enrollOutput,
    async run(ctx, _actor, input) {
      const now = ctx.clock.now();
      const tokenRow = await findLiveEnrollmentToken(ctx, input.enrollmentToken, now);
      const ca = readRootCa(input.rootCaCertificate, now);
      return ctx.withTransaction(async (tx) => {
        const proxy = await consumeEnrollmentToken(tx, tokenRow, now);
        await revokeTokensOf(tx, "agent-proxy", proxy.id);
        await tx.repo(proxyRepository).recordEnrollment(proxy.id, ca, now.toISOString());
        const subject = { actorType: "agent-proxy" as const, actorId: proxy.id, orgId: proxy.orgId };
        const { token } = await issueAccessToken(tx, subject, PROXY_TOKEN_IDLE_TTL_SECONDS);
        return { proxyId: proxy.id, name: proxy.name, accessToken: token, config: toSettings(proxy) };
      });
    },
  }),

  heartbeat: defineOperation({
    name: "heartbeat",
    summary: "Record the calling proxy's check-in and return its current settings",
    audience: "agent-proxy",
    input: z.object({}),
    output: heartbeatOutput,
    use: callingProxyScope,
    async run(ctx, _actor, _input, { proxy, tokenId }) {
      const beat = await ctx.withTransaction(async (tx) => {
        const recorded = await tx.repo(proxyRepository).heartbeat(proxy.id, tx.clock.now().toISOString());
        if (recorded) await extendAccessToken(tx, tokenId, PROXY_TOKEN_IDLE_TTL_SECONDS);
        return recorded;
      });
      if (!beat) throw new UnauthorizedError("This agent proxy no longer exists");
      return { config: toSettings(beat) };
    },
  }),

  config: defineOperation({
    name: "config",
    summary:
      "The calling proxy's settings, the agent sessions it honours (token hashes only), their bundles and those bundles' enabled " +
      "services with credential definitions; polled every pollInterval seconds. Credential values are never included.",
    audience: "agent-proxy",
    input: z.object({}),
    output: proxyStateOutput,
    use: callingProxyScope,
    async run(ctx, _actor, _input, { proxy }) {
      return proxyState(ctx, proxy, ctx.clock.now());
    },
  }),

  resolve: defineOperation({
    name: "resolve",
    summary:
      "Decide one agent request: `broker` (with the credentials to inject and their current values), `passthrough`, or `deny` " +
      "(with the status and message for the agent). An unknown, expired or revoked session, or one for another proxy, is 404.",
    audience: "agent-proxy",
    input: resolveInput,
    output: resolveOutput,
    use: callingProxyScope,
    async run(ctx, actor, input, { proxy }) {
      const live = await liveSessionByToken(ctx, proxy, input.sessionToken, ctx.clock.now());
      const served = live && servesSession(proxy, live.session, live.bundle) ? live : null;
      const decision = served ? await resolveTraffic(ctx, proxy, served.bundle, input) : null;
      await auditCredentialResolve(ctx, {
        proxyId: proxy.id,
        orgId: proxy.orgId,
        sessionId: served?.session.id ?? null,
        host: input.host,
        port: input.port,
        tls: input.tls,
        outcome: decision?.action ?? "session-not-served",
        ...(decision?.action === "broker" ? { serviceId: decision.service.id } : {}),
        ...(actor.request ? { request: actor.request } : {}),
      });
      if (!decision) throw new NotFoundError("Agent session not found, expired or revoked");
      return { decision };
    },
  }),
};
