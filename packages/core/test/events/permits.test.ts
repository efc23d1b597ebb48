import { describe, expect, it } from "vitest";
import { projectAccessFrom, type ProjectRow } from "../../src/access/project-access.js";
import { builtInProjectRoles, type PermissionRule } from "../../src/permissions/index.js";
import { permitsOf } from "../../src/events/permits.js";
import { SUBSCRIBE_ACTIONS, type SecretEventObject } from "../../src/events/index.js";

const ruleSets: Record<string, PermissionRule[]> = {
  none: [],
  admin: builtInProjectRoles.admin.permissions,
  viewer: builtInProjectRoles.viewer.permissions,
  member: builtInProjectRoles.member.permissions,
  "one environment": [{ subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated"], conditions: { environment: "prod" } }],
  "allowed, then denied below /apps": [
    { subject: "secret-events", action: "subscribe-on-created" },
    { subject: "secret-events", action: "subscribe-on-created", conditions: { secretPath: { $glob: "/apps/**" } }, inverted: true },
  ],
  "denied everywhere by a later rule": [
    { subject: "secret-events", action: "subscribe-on-deleted" },
    { subject: "secret-events", action: "subscribe-on-deleted", inverted: true },
  ],
  "manage all, minus one secret name": [
    { subject: "all", action: "manage" },
    { subject: "secret-events", action: "subscribe-on-updated", conditions: { secretName: "ROOT_KEY" }, inverted: true },
  ],
  "other subjects only": [{ subject: "secrets", action: "read" }],
  "events, but one secret name hidden": [
    { subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated", "subscribe-on-deleted"] },
    { subject: "secrets", action: "read" },
    { subject: "secrets", action: "describeSecret", conditions: { secretName: "ROOT_KEY" }, inverted: true },
  ],
};

const objects: SecretEventObject[] = [
  { eventType: "secret:create", environment: "prod", secretPath: "/", secretName: "ROOT_KEY" },
  { eventType: "secret:update", environment: "dev", secretPath: "/apps/api", secretName: "ROOT_KEY" },
  { eventType: "secret:delete", environment: "prod", secretPath: "/apps", secretName: "A" },
  { eventType: "secret:import-mutation", environment: "dev", secretPath: "/" },
];

describe("permitsOf", () => {
  it.each(Object.entries(ruleSets))("decides as the project access does: %s", (_name, rules) => {
    const access = projectAccessFrom({ id: "p" } as ProjectRow, "member", undefined, rules);
    const permits = permitsOf(access);
    for (const action of Object.values(SUBSCRIBE_ACTIONS)) {
      for (const object of objects) {
        // An item naming a secret also needs describeSecret on it (here untagged).
        const { environment, secretPath, secretName } = object;
        const describes = secretName === undefined || access.can("describeSecret", "secrets", { environment, secretPath, secretName, secretTags: [] });
        expect(permits(action, object), `${action} ${JSON.stringify(object)}`).toBe(access.can(action, "secret-events", object) && describes);
      }
    }
  });
});
