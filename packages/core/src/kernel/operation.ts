import type { z } from "zod";
import type { Actor } from "./actor.js";
import { accessCaches } from "../access/caches.js";
import type { Context } from "./context.js";
import { BadRequestError, UnauthorizedError, UniqueViolationError, ValidationError } from "./errors.js";

/**
 * Who may call an operation: `public` (no token), `principal` (a user or machine identity),
 * `agent-proxy` (an enrolled proxy's token, accepted nowhere else).
 */
export type Audience = "public" | "principal" | "agent-proxy";

/**
 * One operation of the core. The same `input`/`output` schemas validate in core, type the
 * function, drive the HTTP route and generate the OpenAPI document.
 */
export interface OperationDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly summary: string;
  readonly audience: Audience;
  readonly input: I;
  readonly output: O;
  /**
   * False for an operation that never writes what access decisions read: access tokens,
   * identities, users' organization memberships, projects and their environments, project
   * memberships and their roles, custom roles, privileges. Any other operation (the default) drops the instance's cached
   * tokens and access when it starts and again when it ends, so its changes apply at once.
   */
  readonly changesAccess?: boolean;
  run(ctx: Context, actor: Actor, input: z.output<I>): Promise<z.input<O>>;
}

export function defineOperation<I extends z.ZodType, O extends z.ZodType>(def: OperationDef<I, O>): OperationDef<I, O> {
  return def;
}

export type OperationFn<D> = D extends OperationDef<infer I, infer O> ? (actor: Actor, input: z.input<I>) => Promise<z.output<O>> : never;

/** Turns zod issues into the 422 body's list of problems, each with its dotted path. */
export function toValidationError(error: z.ZodError): ValidationError {
  return new ValidationError(
    error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })),
  );
}

/**
 * Marks operations that leave access alone (see `OperationDef.changesAccess`): all of them, or
 * only those named in `only`.
 */
export function leavingAccessAlone<T extends Record<string, OperationDef<any, any>>>(operations: T, only?: readonly (keyof T & string)[]): T {
  const marked: Record<string, OperationDef<any, any>> = {};
  for (const [name, def] of Object.entries(operations)) {
    marked[name] = !only || only.includes(name) ? { ...def, changesAccess: false } : def;
  }
  return marked as T;
}

/** Wraps a definition into the callable the core exposes: audience check, input validation, run. */
export function bindOperation<I extends z.ZodType, O extends z.ZodType>(ctx: Context, def: OperationDef<I, O>) {
  const caches = def.changesAccess === false ? undefined : accessCaches(ctx);
  return async (actor: Actor, rawInput: z.input<I>): Promise<z.output<O>> => {
    assertAudience(def.audience, actor);
    const parsed = def.input.safeParse(rawInput ?? {});
    if (!parsed.success) throw toValidationError(parsed.error);
    // Dropped as the change starts, so nothing read before it is served while it may be committing,
    // and again as it ends, for what was read while it ran.
    caches?.changed();
    try {
      return (await def.run(ctx, actor, parsed.data)) as z.output<O>;
    } catch (error) {
      // Operations check uniqueness up front for a precise message; this covers the race they cannot see.
      if (error instanceof UniqueViolationError) {
        throw new BadRequestError(`A record with the same ${error.columns.join(", ")} already exists`);
      }
      throw error;
    } finally {
      caches?.changed();
    }
  };
}

function assertAudience(audience: Audience, actor: Actor): void {
  if (audience === "public") return;
  if (audience === "agent-proxy") {
    if (actor.type !== "agent-proxy") throw new UnauthorizedError("An agent proxy token is required");
    return;
  }
  if (actor.type !== "user" && actor.type !== "identity") throw new UnauthorizedError("A valid access token is required");
}
