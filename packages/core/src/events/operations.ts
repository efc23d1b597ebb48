import { z } from "zod";
import { defineOperation } from "../kernel/operation.js";
import { requireRegistrations, subscriptionScope } from "./authorize.js";
import { toRegistration } from "./match.js";
import { subscriptionsOf } from "./registry.js";
import { subscribeInput } from "./schemas.js";
import { ProjectSubscription, type ProjectEventSubscription } from "./subscription.js";

/**
 * The `events` area: live secret events of a project (DESIGN.md §6), over SSE through the HTTP
 * adapter or directly when Strongroom is embedded:
 *
 * ```ts
 * const subscription = await strongroom.events.subscribe(actor, {
 *   projectId,
 *   register: [{ event: "secret:update", conditions: { environmentSlug: "prod", secretPath: "/**" } }],
 * });
 * for await (const event of subscription.events) {
 *   console.log(event.id, event.eventType, event.projectType, event.payload);
 *   if (done) break; // or subscription.cancel() from elsewhere: either releases the subscription
 * }
 * ```
 *
 * Refusals happen before anything is returned: 422 for a malformed request, 404 for a project the
 * actor may not know, 403 naming each missing `secret-events` permission, 429 past 5 open
 * subscriptions per actor and project. Every second (by the instance's clock) the token and the
 * permissions are checked again, so a revocation or a lost membership ends the subscription within
 * 2 s on any node; a failure ends it with that error (`events` throws it, `stream` sends it as an
 * `event: error` frame).
 */
export const eventOperations = {
  subscribe: defineOperation({
    name: "subscribe",
    summary: "Open a live stream of a project's secret events (Server-Sent Events)",
    audience: "principal",
    input: subscribeInput,
    output: z.custom<ProjectEventSubscription>((value) => value instanceof ProjectSubscription),
    use: subscriptionScope,
    async run(ctx, actor, input, { access }) {
      const registrations = input.register.map(toRegistration);
      requireRegistrations(access, registrations);
      return subscriptionsOf(ctx).open(actor, access, registrations);
    },
  }),
};
