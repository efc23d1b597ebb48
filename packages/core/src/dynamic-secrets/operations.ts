import { leaseOperations } from "./leases/operations.js";
import { dynamicSecretOperations as secretOperations } from "./secrets/operations.js";

/** The dynamic-secrets area: `strongroom.dynamicSecrets.create(...)`, `strongroom.dynamicSecrets.createLease(...)` and the rest. */
export const dynamicSecretOperations = { ...secretOperations, ...leaseOperations };
