import { z } from "zod";
import { isoDateTime, slugPattern, uuid } from "../../kernel/schemas.js";
import { KEY_ALGORITHMS, KEY_USAGES } from "../algorithms/catalogue.js";
import { keyAlgorithmProblem } from "./choose-algorithm.js";

/** A key as Infisical's API answers it (`CmekSchema`: `algorithm` and its older name `encryptionAlgorithm`), plus the rotation schedule. */
export const kmsKeySchema = z.object({
  id: uuid,
  orgId: uuid,
  projectId: uuid,
  name: z.string(),
  description: z.string(),
  keyUsage: z.enum(KEY_USAGES),
  algorithm: z.enum(KEY_ALGORITHMS),
  encryptionAlgorithm: z.enum(KEY_ALGORITHMS),
  /** The primary version: new ciphertexts, signatures and MACs use it; older versions still decrypt and verify. */
  version: z.int(),
  isDisabled: z.boolean(),
  rotationIntervalDays: z.int().nullable(),
  nextRotationAt: isoDateTime.nullable(),
  createdAt: isoDateTime,
  updatedAt: isoDateTime,
});

export const kmsKeyOutput = z.object({ key: kmsKeySchema });
export const kmsKeyListOutput = z.object({ keys: z.array(kmsKeySchema), totalCount: z.int() });

/** Query strings arrive as text: integers take their JSON form or their decimal spelling, bounds apply to both. */
const queryInteger = (min: number, max: number) => {
  const bounded = z.int().min(min).max(max);
  return z.union([bounded, z.string().regex(/^\d{1,10}$/, "Expected an integer").transform(Number).pipe(bounded)]);
};

const projectId = z.string().min(1).max(255);
export const keyId = z.string().min(1).max(255);
const keyName = z.string().min(1).max(32).regex(slugPattern, "A key name is a slug: lower-case letters, digits and single hyphens, at most 32");
const description = z.string().trim().max(500);
const rotationIntervalDays = z.int().min(1).max(3650).nullable().describe("Rotate automatically every so many days; null turns it off");

export const createKeyInput = z
  .object({
    projectId,
    name: keyName,
    description: description.optional(),
    keyUsage: z.enum(KEY_USAGES).default("encrypt-decrypt"),
    algorithm: z.enum(KEY_ALGORITHMS).optional(),
    encryptionAlgorithm: z.enum(KEY_ALGORITHMS).optional().describe("Older name of `algorithm`, as the SDK sends it"),
    rotationIntervalDays: rotationIntervalDays.optional(),
  })
  .superRefine((input, issues) => {
    const problem = keyAlgorithmProblem(input);
    if (problem) issues.addIssue({ code: "custom", path: ["algorithm"], message: problem });
  });

export const listKeysInput = z.object({
  projectId,
  offset: queryInteger(0, 1_000_000_000).default(0),
  limit: queryInteger(1, 100).default(100),
  orderBy: z.enum(["name"]).default("name"),
  orderDirection: z.enum(["asc", "desc"]).default("asc"),
  search: z.string().trim().max(64).optional(),
});

export const keyRefInput = z.object({ keyId });

export const keyByNameInput = z.object({ keyName: z.string().min(1).max(64), projectId });

export const updateKeyInput = z.object({
  keyId,
  name: keyName.optional(),
  description: description.optional(),
  isDisabled: z.boolean().optional(),
  rotationIntervalDays: rotationIntervalDays.optional(),
});
