import { describe, expect, it } from "vitest";
import {
  indexRegistrations,
  selectPayload,
  toRegistration,
  type SecretEventPermission,
  type SubscribeInput,
} from "../../src/events/index.js";
import type { ProjectEvent } from "../../src/kernel/bus.js";
import { can, compileRules, type PermissionRule } from "../../src/permissions/index.js";

const item = (environment: string, secretPath: string, secretKey = "KEY") => ({ environment, secretPath, secretKey });

const created = (...payload: ReturnType<typeof item>[]): ProjectEvent => ({ projectId: "p", projectType: "secret-manager", eventType: "secret:create", payload });
const imported = (environment: string, secretPath: string): ProjectEvent => ({
  projectId: "p",
  projectType: "secret-manager",
  eventType: "secret:import-mutation",
  payload: { environment, secretPath },
});

const everything: SecretEventPermission = () => true;

/** The decision ProjectAccess.can makes for these rules. */
function permitsBy(rules: PermissionRule[]): SecretEventPermission {
  const compiled = compileRules(rules);
  return (action, object) => can(compiled, action, "secret-events", object);
}

const select = (event: ProjectEvent, register: SubscribeInput["register"], permits = everything) =>
  selectPayload(event, indexRegistrations(register.map(toRegistration)), permits);

const keys = (payload: ProjectEvent["payload"] | undefined) =>
  payload === undefined ? undefined : Array.isArray(payload) ? payload.map((p) => `${p.environment}:${p.secretPath}:${p.secretKey}`) : payload;

describe("selectPayload: registrations", () => {
  const mixed = created(item("dev", "/", "ROOT"), item("dev", "/apps/api", "API"), item("prod", "/apps/web", "WEB"), item("dev", "/apps/api/v2", "DEEP"));

  it.each([
    ["no conditions: root of every environment", [{ event: "secret:create" }], ["dev:/:ROOT"]],
    ["`/` is the root only", [{ event: "secret:create", conditions: { secretPath: "/" } }], ["dev:/:ROOT"]],
    ["`/**` is everything", [{ event: "secret:create", conditions: { secretPath: "/**" } }], ["dev:/:ROOT", "dev:/apps/api:API", "prod:/apps/web:WEB", "dev:/apps/api/v2:DEEP"]],
    ["`/apps/*` is one level below /apps", [{ event: "secret:create", conditions: { secretPath: "/apps/*" } }], ["dev:/apps/api:API", "prod:/apps/web:WEB"]],
    ["`/apps/**` is /apps and below", [{ event: "secret:create", conditions: { secretPath: "/apps/**" } }], ["dev:/apps/api:API", "prod:/apps/web:WEB", "dev:/apps/api/v2:DEEP"]],
    ["environment must be equal", [{ event: "secret:create", conditions: { environmentSlug: "prod", secretPath: "/**" } }], ["prod:/apps/web:WEB"]],
    [
      "several registrations: an item matching any one is kept",
      [
        { event: "secret:create", conditions: { environmentSlug: "prod", secretPath: "/**" } },
        { event: "secret:create", conditions: { secretPath: "/" } },
      ],
      ["dev:/:ROOT", "prod:/apps/web:WEB"],
    ],
    ["another event kind matches nothing", [{ event: "secret:update", conditions: { secretPath: "/**" } }], undefined],
    ["nothing left: nothing is sent", [{ event: "secret:create", conditions: { environmentSlug: "staging", secretPath: "/**" } }], undefined],
  ] as [string, SubscribeInput["register"], string[] | undefined][])("%s", (_name, register, expected) => {
    expect(keys(select(mixed, register))).toEqual(expected);
  });

  it("returns an event that passes whole as the same array, so its text can be shared", () => {
    const event = created(item("dev", "/a"), item("dev", "/b"));
    expect(select(event, [{ event: "secret:create", conditions: { secretPath: "/**" } }])).toBe(event.payload);
  });

  it.each([
    ["matching folder", "dev", "/apps/api", { environment: "dev", secretPath: "/apps/api" }],
    ["other environment", "prod", "/apps/api", undefined],
    ["folder outside the glob", "dev", "/other", undefined],
  ] as const)("import mutations are a single object: %s", (_name, environment, secretPath, expected) => {
    const register = [{ event: "secret:import-mutation" as const, conditions: { environmentSlug: "dev", secretPath: "/apps/**" } }];
    expect(select(imported(environment, secretPath), register)).toEqual(expected);
  });
});

describe("selectPayload: the actor's secret-events permission", () => {
  const all = [{ event: "secret:create" as const, conditions: { secretPath: "/**" } }, { event: "secret:import-mutation" as const, conditions: { secretPath: "/**" } }];
  const event = created(item("dev", "/", "A"), item("prod", "/", "B"), item("dev", "/apps/x", "C"), item("dev", "/apps/x", "SKIP"));

  it.each([
    ["no rule: nothing", [], undefined],
    ["unconditional rule: everything", [{ subject: "secret-events", action: "subscribe-on-created" }], ["dev:/:A", "prod:/:B", "dev:/apps/x:C", "dev:/apps/x:SKIP"]],
    ["the wrong action: nothing", [{ subject: "secret-events", action: "subscribe-on-deleted" }], undefined],
    ["limited to an environment", [{ subject: "secret-events", action: "subscribe-on-created", conditions: { environment: "dev" } }], ["dev:/:A", "dev:/apps/x:C", "dev:/apps/x:SKIP"]],
    [
      "limited to a path glob",
      [{ subject: "secret-events", action: "subscribe-on-created", conditions: { secretPath: { $glob: "/apps/**" } } }],
      ["dev:/apps/x:C", "dev:/apps/x:SKIP"],
    ],
    [
      "an eventType condition",
      [{ subject: "secret-events", action: ["subscribe-on-created", "subscribe-on-updated"], conditions: { eventType: "secret:update" } }],
      undefined,
    ],
    [
      "an inverted rule on one secret name",
      [
        { subject: "secret-events", action: "subscribe-on-created" },
        { subject: "secret-events", action: "subscribe-on-created", conditions: { secretName: "SKIP" }, inverted: true },
      ],
      ["dev:/:A", "prod:/:B", "dev:/apps/x:C"],
    ],
    ["`all` subjects with `manage`", [{ subject: "all", action: "manage" }], ["dev:/:A", "prod:/:B", "dev:/apps/x:C", "dev:/apps/x:SKIP"]],
  ] as [string, PermissionRule[], string[] | undefined][])("%s", (_name, rules, expected) => {
    expect(keys(select(event, all, permitsBy(rules)))).toEqual(expected);
  });

  it("checks import mutations against the import action, environment and path", () => {
    const rules: PermissionRule[] = [{ subject: "secret-events", action: "subscribe-on-import-mutations", conditions: { environment: "dev" } }];
    expect(select(imported("dev", "/x"), all, permitsBy(rules))).toEqual({ environment: "dev", secretPath: "/x" });
    expect(select(imported("prod", "/x"), all, permitsBy(rules))).toBeUndefined();
  });

  it("asks the permission with the event kind, environment, path and secret name", () => {
    const asked: unknown[] = [];
    select(created(item("dev", "/a", "K")), all, (action, object) => {
      asked.push([action, object]);
      return true;
    });
    expect(asked).toEqual([["subscribe-on-created", { eventType: "secret:create", environment: "dev", secretPath: "/a", secretName: "K" }]]);
  });
});
