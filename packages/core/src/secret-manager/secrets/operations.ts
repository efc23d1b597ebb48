import { batchOperations } from "./batch-operations.js";
import { readOperations } from "./read-operations.js";
import { tagOperations } from "./tag-operations.js";
import { writeOperations } from "./write-operations.js";

/** The `secrets` area. */
export const secretOperations = { ...readOperations, ...writeOperations, ...batchOperations, ...tagOperations };
