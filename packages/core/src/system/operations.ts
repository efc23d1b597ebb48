import { z } from "zod";
import { defineOperation } from "../kernel/operation.js";
import { emptyInput } from "../kernel/schemas.js";

export const systemOperations = {
  status: defineOperation({
    name: "status",
    summary: "Health check",
    audience: "public",
    input: emptyInput,
    output: z.object({ status: z.literal("ok") }),
    async run() {
      return { status: "ok" as const };
    },
  }),
};
