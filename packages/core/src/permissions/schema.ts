import { z } from "zod";
import { globProblem } from "./glob.js";

/**
 * A CASL-style permission rule (DESIGN.md §4). Rules are evaluated in order: the last rule that
 * matches subject, action and conditions decides; `inverted` rules deny.
 */
export interface PermissionRule {
  subject: string;
  action: string | string[];
  conditions?: Record<string, unknown>;
  inverted?: boolean;
}

/**
 * The fields a condition may constrain, with the shape of the value a checked object carries:
 * `scalar` fields hold one string, `list` fields an array of strings. The boundary check
 * (missingPermissions) relies on these shapes; extend this table to add a condition field.
 */
export const CONDITION_FIELDS = {
  environment: "scalar",
  secretPath: "scalar",
  secretName: "scalar",
  secretTags: "list",
  eventType: "scalar",
} as const satisfies Record<string, "scalar" | "list">;

export type ConditionField = keyof typeof CONDITION_FIELDS;

/** The object a check with conditions is made against, shaped as CONDITION_FIELDS says. */
export type PermissionObject = {
  readonly [F in ConditionField]?: (typeof CONDITION_FIELDS)[F] extends "list" ? readonly string[] : string;
};

// Bounds keep a single rule cheap to compile and to reason about in the boundary check.
const MAX_VALUE_LENGTH = 1024;
const MAX_LIST_LENGTH = 100;

const conditionValue = z.string().max(MAX_VALUE_LENGTH);
const conditionList = z.array(conditionValue).max(MAX_LIST_LENGTH);

/** A `$glob` operand: picomatch's syntax without extglobs, which the linear matcher runs (glob.ts). */
export const globPatternSchema = conditionValue.superRefine((pattern, ctx) => {
  const problem = globProblem(pattern);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

export const conditionOperatorsSchema = z
  .strictObject({
    $eq: conditionValue.optional(),
    $ne: conditionValue.optional(),
    $in: conditionList.optional(),
    $all: conditionList.optional(),
    $glob: globPatternSchema.optional(),
  })
  .refine((operators) => Object.keys(operators).length > 0, { message: "Expected at least one condition operator" });

/** A field's condition: a plain string means equality, otherwise an object of operators (all must hold). */
export const fieldConditionSchema = z.union([conditionValue, conditionOperatorsSchema]);

const conditionShape = Object.fromEntries(
  Object.keys(CONDITION_FIELDS).map((field) => [field, fieldConditionSchema.optional()]),
) as Record<ConditionField, z.ZodOptional<typeof fieldConditionSchema>>;

/** Unknown fields are rejected: a misspelt field in an inverted rule would silently deny nothing. */
export const permissionConditionsSchema = z.strictObject(conditionShape);

const name = z.string().min(1).max(64);

export const permissionRuleSchema = z.object({
  subject: name,
  action: z.union([name, z.array(name).min(1).max(MAX_LIST_LENGTH)]),
  conditions: permissionConditionsSchema.optional(),
  inverted: z.boolean().optional(),
});

export const permissionRulesSchema = z.array(permissionRuleSchema).max(1000);

export type ValidPermissionRule = z.output<typeof permissionRuleSchema>;
