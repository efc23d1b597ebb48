import { z } from "zod";
import {
  BadRequestError,
  PermissionDeniedError,
  RateLimitError,
  UnauthorizedError,
  toValidationError,
  type Actor,
  type OperationDef,
} from "@strongroom/core";
import type { EventStream, Route, StrongroomTarget } from "@strongroom/http-node";
import { Channel } from "./channel.js";

export const USER_TOKEN = "tok_user.SECRETSECRETSECRET";
export const IDENTITY_TOKEN = "tok_identity.ANOTHERSECRET";
/** Every operation that fails unexpectedly puts this into its error, to prove it never leaks. */
export const INTERNAL_DETAIL = "db password hunter2 at 10.0.0.7";

const ok = z.object({ ok: z.literal(true) });

function op(name: string, audience: OperationDef["audience"], input: z.ZodType, output: z.ZodType, run: (actor: Actor, input: any) => Promise<unknown>): OperationDef {
  return { name, summary: `Test operation ${name}`, audience, input, output, run: (_ctx, actor, input) => run(actor, input) as Promise<never> };
}

/** Resolved by tests to let a held request finish. */
export interface Gate {
  entered: Promise<void>;
  release(): void;
}

/**
 * A Strongroom-shaped object with test operations, real zod schemas and core's real errors, so
 * the adapter can be exercised before (and independently of) the real operations.
 */
export function createFakeStrongroom() {
  const streams: Channel[] = [];
  let gate: { enter: () => void; wait: Promise<void> } | undefined;
  let closed = 0;
  const passGate = async () => {
    if (!gate) return;
    gate.enter();
    await gate.wait;
  };

  const operations: Record<string, OperationDef> = {
    "test.status": op("status", "public", z.object({}), z.object({ status: z.literal("ok") }), async () => ({ status: "ok" })),
    "test.echo": op(
      "echo",
      "principal",
      z.object({ projectId: z.string(), name: z.string().min(1), count: z.number().int().optional() }).strict(),
      z.object({ projectId: z.string(), name: z.string(), count: z.number().optional(), actor: z.string() }),
      async (actor, input) => ({ ...input, actor: actor.type }),
    ),
    "test.list": op(
      "list",
      "principal",
      z.object({ projectId: z.string(), limit: z.coerce.number().int().min(1).max(100).optional(), tag: z.union([z.string(), z.array(z.string())]).optional() }),
      z.object({ projectId: z.string(), limit: z.number().optional(), tag: z.unknown() }),
      async (_actor, input) => input,
    ),
    "test.create": op("create", "principal", z.object({ name: z.string() }), z.object({ id: z.string(), name: z.string() }), async (_a, input) => ({ id: "p1", name: input.name })),
    "test.boom": op("boom", "principal", z.object({}), ok, async () => {
      throw new Error(`connection failed: ${INTERNAL_DETAIL} token=${USER_TOKEN}`);
    }),
    "test.forbidden": op("forbidden", "principal", z.object({}), ok, async () => {
      throw new PermissionDeniedError("Not allowed to read secrets", { missing: ["secrets:read"] });
    }),
    "test.badRequest": op("badRequest", "principal", z.object({}), ok, async () => {
      throw new BadRequestError("Instance already bootstrapped", { hint: "log in instead" });
    }),
    "test.limited": op("limited", "principal", z.object({}), ok, async () => {
      throw new RateLimitError("Too many open streams", 7);
    }),
    "test.hold": op("hold", "public", z.object({}), ok, async () => {
      await passGate();
      return { ok: true };
    }),
    "test.stream": op("stream", "principal", z.object({ projectId: z.string() }), z.any(), async () => {
      await passGate();
      const channel = new Channel();
      streams.push(channel);
      return { stream: channel, cancel: () => channel.cancel() } satisfies EventStream;
    }),
    "test.firehose": op("firehose", "principal", z.object({ size: z.number().int() }), z.any(), async (_a, input) => {
      const channel = new Channel();
      streams.push(channel);
      return { stream: channel.firehose(input.size), cancel: () => channel.cancel() } satisfies EventStream;
    }),
  };

  const strongroom: StrongroomTarget & { close(): Promise<void> } = {
    operations,
    async authenticate(token) {
      if (token === undefined) return { type: "anonymous" };
      if (token === USER_TOKEN) return { type: "user", userId: "u1", tokenId: "t1" };
      if (token === IDENTITY_TOKEN) return { type: "identity", identityId: "i1", orgId: "o1", tokenId: "t2" };
      throw new UnauthorizedError("Invalid or expired access token");
    },
    async invoke(name, actor, input) {
      const def = operations[name];
      if (!def) throw new Error(`unknown operation ${name}`);
      if (def.audience !== "public" && actor.type === "anonymous") throw new UnauthorizedError("A valid access token is required");
      const parsed = def.input.safeParse(input ?? {});
      if (!parsed.success) throw toValidationError(parsed.error);
      return def.run(undefined as never, actor, parsed.data);
    },
    async close() {
      closed++;
    },
  };

  return {
    strongroom,
    /** Event streams opened so far, oldest first. */
    streams,
    get closeCount() {
      return closed;
    },
    /** Makes `test.hold` and `test.stream` wait until the returned gate is released. */
    holdRequests(): Gate {
      let enter!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((resolve) => (enter = resolve));
      const wait = new Promise<void>((resolve) => (release = resolve));
      gate = { enter, wait };
      return { entered, release };
    },
  };
}

export type FakeStrongroom = ReturnType<typeof createFakeStrongroom>;

export const testRoutes: readonly Route[] = [
  { method: "GET", path: "/api/status", operation: "test.status" },
  { method: "POST", path: "/api/v1/projects", operation: "test.create", status: 201 },
  { method: "POST", path: "/api/v1/projects/{projectId}/echo", operation: "test.echo", trailingSlash: true },
  { method: "GET", path: "/api/v1/projects/{projectId}/items", operation: "test.list", query: ["limit", "tag"] },
  { method: "GET", path: "/api/v1/projects/special/items", operation: "test.status" },
  { method: "POST", path: "/api/v1/boom", operation: "test.boom" },
  { method: "POST", path: "/api/v1/forbidden", operation: "test.forbidden" },
  { method: "POST", path: "/api/v1/bad-request", operation: "test.badRequest" },
  { method: "POST", path: "/api/v1/limited", operation: "test.limited" },
  { method: "POST", path: "/api/v1/hold", operation: "test.hold" },
  { method: "POST", path: "/api/v1/projects/{projectId}/events", operation: "test.stream", kind: "sse" },
  { method: "POST", path: "/api/v1/firehose", operation: "test.firehose", kind: "sse" },
];
