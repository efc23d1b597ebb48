import { projectScope, recordScope, type ProjectScope, type ProjectTypeRule, type RecordScope } from "../access/scope.js";
import type { Middleware } from "../kernel/operation.js";
import type { ProjectPermissionAction } from "../permissions/index.js";
import { cmekRepository } from "./keys/repository.js";
import type { CmekKeyRow } from "./tables.js";

/** The permission subject of KMS keys (DESIGN.md §11; role definitions may also say `cmek`, Infisical's name). */
export const KMS_SUBJECT = "kms";
export type KmsAction = ProjectPermissionAction<"kms">;

const KMS_PROJECT: ProjectTypeRule = {
  type: "kms",
  refusal: (actual) => `KMS keys live in kms projects; this project's type is ${actual}`,
};

/** A kms project named by `projectId`, where the actor may `action` keys. */
export const kmsProjectScope = (action: KmsAction): Middleware<{ projectId: string }, ProjectScope> =>
  projectScope({ project: (input: { projectId: string }) => ({ projectId: input.projectId }), type: KMS_PROJECT, permission: { action, subject: KMS_SUBJECT } });

/** A key named by `keyId` that the actor may `action`: 404 for a key out of sight, as for one that does not exist. */
export const keyScope = (action: KmsAction): Middleware<{ keyId: string }, RecordScope<CmekKeyRow>> =>
  recordScope({
    what: "KMS key",
    load: (ctx, input: { keyId: string }) => ctx.repo(cmekRepository).byId(input.keyId),
    type: KMS_PROJECT,
    permission: { action, subject: KMS_SUBJECT },
  });
