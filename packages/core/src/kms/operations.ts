import { keyOperations } from "./keys/operations.js";
import { useOperations } from "./use/operations.js";

/** The KMS area: `strongroom.kms.createKey(...)`, `strongroom.kms.encrypt(...)` and the rest. */
export const kmsOperations = { ...keyOperations, ...useOperations };
