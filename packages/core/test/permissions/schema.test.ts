import { describe, expect, it } from "vitest";
import { permissionRuleSchema, permissionRulesSchema } from "../../src/permissions/index.js";

const rule = (conditions: unknown) => ({ subject: "secrets", action: ["read"], conditions });

describe("permissionRuleSchema", () => {
  it.each([
    ["a bare rule", { subject: "secrets", action: "read" }],
    ["an action list", { subject: "secrets", action: ["read", "edit"] }],
    ["an inverted rule", { subject: "secrets", action: "read", inverted: true }],
    ["actions beyond the catalogue (SPEC samples use write)", { subject: "secrets", action: "write" }],
    ["empty conditions", rule({})],
    ["a plain value", rule({ environment: "dev" })],
    ["$eq", rule({ environment: { $eq: "dev" } })],
    ["$ne", rule({ environment: { $ne: "prod" } })],
    ["$in", rule({ environment: { $in: ["dev", "staging"] } })],
    ["$all", rule({ secretTags: { $all: ["a", "b"] } })],
    ["$glob", rule({ secretPath: { $glob: "/apps/**" } })],
    ["an empty glob", rule({ secretPath: { $glob: "" } })],
    ["several operators", rule({ secretName: { $glob: "DB_*", $ne: "DB_ROOT" } })],
    ["every condition field", rule({ environment: "dev", secretPath: "/", secretName: "K", secretTags: { $in: ["t"] }, eventType: "secret:create" })],
  ])("accepts %s", (_name, input) => {
    expect(permissionRuleSchema.safeParse(input).success).toBe(true);
  });

  it.each([
    ["a missing subject", { action: "read" }],
    ["an empty subject", { subject: "", action: "read" }],
    ["a missing action", { subject: "secrets" }],
    ["an empty action list", { subject: "secrets", action: [] }],
    ["a non-boolean inverted", { subject: "secrets", action: "read", inverted: "yes" }],
    ["an unknown operator", rule({ environment: { $regex: "dev" } })],
    ["a MongoDB operator we do not support", rule({ secretTags: { $nin: ["a"] } })],
    ["a top-level query operator", rule({ $or: [{ environment: "dev" }] })],
    ["an unknown field", rule({ enviroment: "dev" })],
    ["an empty operator object", rule({ environment: {} })],
    ["a number", rule({ environment: 1 })],
    ["null", rule({ environment: null })],
    ["an array as plain value", rule({ secretTags: ["a"] })],
    ["$in of a string", rule({ environment: { $in: "dev" } })],
    ["$in of numbers", rule({ environment: { $in: [1] } })],
    ["$glob of an array", rule({ secretPath: { $glob: ["/a"] } })],
    ["conditions that are not an object", rule("environment=dev")],
  ])("rejects %s", (_name, input) => {
    expect(permissionRuleSchema.safeParse(input).success).toBe(false);
  });

  it("validates each rule of a list", () => {
    expect(permissionRulesSchema.safeParse([{ subject: "secrets", action: "read" }]).success).toBe(true);
    expect(permissionRulesSchema.safeParse([{ subject: "secrets", action: "read" }, rule({ x: "y" })]).success).toBe(false);
  });
});
