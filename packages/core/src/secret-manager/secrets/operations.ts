import { leavingAccessAlone } from "../../kernel/operation.js";
import { batchOperations } from "./batch-operations.js";
import { readOperations } from "./read-operations.js";
import { tagOperations } from "./tag-operations.js";
import { writeOperations } from "./write-operations.js";

/** The `secrets` area. Secrets, their versions and tags are not what access is decided on. */
export const secretOperations = leavingAccessAlone({ ...readOperations, ...writeOperations, ...batchOperations, ...tagOperations });
