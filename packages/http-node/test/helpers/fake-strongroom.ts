import { z } from "zod";
import {
  BadRequestError,
  PermissionDeniedError,
  RateLimitError,
  UnauthorizedError,
  ValidationError,
  type Actor,
  type AnyOperation,
  type OperationDef,
  type Operations,
} from "@strongroom/core";
import { get, post, type Route, type SseSource, type StrongroomTarget } from "@strongroom/http-node";
import { Channel } from "./channel.js";

export const USER_TOKEN = "tok_user.SECRETSECRETSECRET";
export const IDENTITY_TOKEN = "tok_identity.ANOTHERSECRET";
/** Every operation that fails unexpectedly puts this into its error, to prove it never leaks. */
export const INTERNAL_DETAIL = "db password hunter2 at 10.0.0.7";

const ok = z.object({ ok: z.literal(true) });

/** What the fake hands its operations in place of a context: the state of the fake that runs them. */
interface FakeState {
  passGate(): Promise<void>;
  readonly streams: Channel[];
}

function op(
  name: string,
  audience: OperationDef["audience"],
  input: z.ZodType,
  output: z.ZodType,
  run: (actor: Actor, input: any, state: FakeState) => Promise<unknown>,
): AnyOperation {
  return {
    name,
    summary: `Test operation ${name}`,
    audience,
    input,
    output,
    run: (ctx, actor, input) => run(actor, input, ctx as unknown as FakeState) as Promise<never>,
  };
}

/** A stream operation's result: frames pushed by the test through its channel. */
interface ChannelStream extends SseSource {
  readonly channel: Channel;
}

const channelFrames = (result: unknown): SseSource => result as ChannelStream;

/** The fake's operations, as the registry groups them: one area, `test`. */
export const testOperations = {
  status: op("status", "public", z.object({}), z.object({ status: z.literal("ok") }), async () => ({ status: "ok" })),
  echo: op(
    "echo",
    "principal",
    z.object({ projectId: z.string(), name: z.string().min(1), count: z.number().int().optional() }).strict(),
    z.object({ projectId: z.string(), name: z.string(), count: z.number().optional(), actor: z.string() }),
    async (actor, input) => ({ ...input, actor: actor.type }),
  ),
  list: op(
    "list",
    "principal",
    z.object({ projectId: z.string(), limit: z.coerce.number().int().min(1).max(100).optional(), tag: z.union([z.string(), z.array(z.string())]).optional() }),
    z.object({ projectId: z.string(), limit: z.number().optional(), tag: z.unknown() }),
    async (_actor, input) => input,
  ),
  create: op("create", "principal", z.object({ name: z.string() }), z.object({ id: z.string(), name: z.string() }), async (_a, input) => ({ id: "p1", name: input.name })),
  boom: op("boom", "principal", z.object({}), ok, async () => {
    throw new Error(`connection failed: ${INTERNAL_DETAIL} token=${USER_TOKEN}`);
  }),
  forbidden: op("forbidden", "principal", z.object({}), ok, async () => {
    throw new PermissionDeniedError("Not allowed to read secrets", { missing: ["secrets:read"] });
  }),
  badRequest: op("badRequest", "principal", z.object({}), ok, async () => {
    throw new BadRequestError("Instance already bootstrapped", { hint: "log in instead" });
  }),
  limited: op("limited", "principal", z.object({}), ok, async () => {
    throw new RateLimitError("Too many open streams", 7);
  }),
  hold: op("hold", "public", z.object({}), ok, async (_a, _i, state) => {
    await state.passGate();
    return { ok: true };
  }),
  stream: op("stream", "principal", z.object({ projectId: z.string() }), z.any(), async (_a, _i, state) => {
    await state.passGate();
    const channel = new Channel();
    state.streams.push(channel);
    return { channel, frames: channel, cancel: () => channel.cancel() } satisfies ChannelStream;
  }),
  firehose: op("firehose", "principal", z.object({ size: z.number().int() }), z.any(), async (_a, input, state) => {
    const channel = new Channel();
    state.streams.push(channel);
    return { channel, frames: channel.firehose(input.size), cancel: () => channel.cancel() } satisfies ChannelStream;
  }),
};

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

  const state: FakeState = { passGate, streams };
  const operations = { test: testOperations } as unknown as Operations;

  const strongroom: StrongroomTarget & { close(): Promise<void> } = {
    operations,
    async authenticate(token) {
      if (token === undefined) return { type: "anonymous" };
      if (token === USER_TOKEN) return { type: "user", userId: "u1", tokenId: "t1" };
      if (token === IDENTITY_TOKEN) return { type: "identity", identityId: "i1", orgId: "o1", tokenId: "t2" };
      throw new UnauthorizedError("Invalid or expired access token");
    },
    async call(def, actor, input) {
      if (def.audience !== "public" && actor.type === "anonymous") throw new UnauthorizedError("A valid access token is required");
      const parsed = def.input.safeParse(input ?? {});
      if (!parsed.success) {
        throw new ValidationError(parsed.error.issues.map((issue: z.core.$ZodIssue) => ({ path: issue.path.map(String).join("."), message: issue.message })));
      }
      return def.run(state as never, actor, parsed.data, undefined) as never;
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

const t = testOperations;

export const testRoutes: readonly Route[] = [
  get("/api/status", t.status),
  post("/api/v1/projects", t.create, { status: 201 }),
  post("/api/v1/projects/{projectId}/echo", t.echo, { trailingSlash: true }),
  get("/api/v1/projects/{projectId}/items", t.list),
  get("/api/v1/projects/special/items", t.status),
  post("/api/v1/boom", t.boom),
  post("/api/v1/forbidden", t.forbidden),
  post("/api/v1/bad-request", t.badRequest),
  post("/api/v1/limited", t.limited),
  post("/api/v1/hold", t.hold),
  post("/api/v1/projects/{projectId}/events", t.stream, { kind: "sse", frames: channelFrames }),
  post("/api/v1/firehose", t.firehose, { kind: "sse", frames: channelFrames }),
];
