import { z } from "zod";
import { defineOperation } from "../kernel/operation.js";
import { emptyInput } from "../kernel/schemas.js";
import { requireReady } from "./readiness.js";

export const systemOperations = {
  status: defineOperation({
    name: "status",
    summary: "Liveness: answers while the process serves HTTP, whatever its dependencies do",
    audience: "public",
    input: emptyInput,
    output: z.object({ status: z.literal("ok") }),
    async run() {
      return { status: "ok" as const };
    },
  }),

  ready: defineOperation({
    name: "ready",
    summary: "Readiness: 503 with the reason while the database (or, on PostgreSQL, the event relay) is not usable, or during a drain",
    audience: "public",
    input: emptyInput,
    output: z.object({ status: z.literal("ready") }),
    async run(ctx) {
      await requireReady(ctx);
      return { status: "ready" as const };
    },
  }),
};
