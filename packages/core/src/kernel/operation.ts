import type { z } from "zod";
import type { Actor } from "./actor.js";
import type { Context } from "./context.js";
import { BadRequestError, UnauthorizedError, UniqueViolationError, ValidationError } from "./errors.js";
import { validateInput } from "./sliced-input.js";

/**
 * Who may call an operation: `public` (no token), `principal` (a user or machine identity),
 * `agent-proxy` (an enrolled proxy's token, accepted nowhere else).
 */
export type Audience = "public" | "principal" | "agent-proxy";

/**
 * A middleware declared on an operation (as tRPC's `.use()`): it runs after the input is
 * validated and before `run`, and what it resolves to is handed to `run` as its scope. The
 * access layer's `projectScope` / `recordScope` are the ones areas use: project lookup, type
 * check, the 404 mask and the permission check, once.
 */
export type Middleware<I, S> = (ctx: Context, actor: Actor, input: I) => Promise<S>;

/**
 * One operation of the core. The same `input`/`output` schemas validate in core, type the
 * function, drive the HTTP route and generate the OpenAPI document.
 */
export interface OperationDef<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType, S = unknown> {
  readonly name: string;
  readonly summary: string;
  readonly audience: Audience;
  readonly input: I;
  readonly output: O;
  readonly use?: Middleware<z.output<I>, S>;
  run(ctx: Context, actor: Actor, input: z.output<I>, scope: S): Promise<z.input<O>>;
  /**
   * A tag of the stored state `run` would answer from, read without making the answer: equal
   * tags mean equal answers to this actor and input. Lets a caller that holds the answer of a
   * tag revalidate it cheaply (HTTP: ETag and 304).
   */
  revision?(ctx: Context, actor: Actor, input: z.output<I>, scope: S): Promise<string>;
}

/** A conditional call: the caller may already hold an answer (HTTP If-None-Match). */
export interface Revalidation {
  /** Whether the caller holds the answer of this revision; if so the call resolves to NOT_MODIFIED without running. */
  readonly holds: (revision: string) => boolean;
  /** Set by the call, for operations that have revisions: the revision the answer is made at (or was, for NOT_MODIFIED). */
  revision?: string;
}

/** What a conditional call resolves to when the caller's answer is still the answer. */
export const NOT_MODIFIED = Object.freeze({ notModified: true as const });
export type NotModified = typeof NOT_MODIFIED;

export function defineOperation<I extends z.ZodType, O extends z.ZodType, S = undefined>(def: OperationDef<I, O, S>): OperationDef<I, O, S> {
  return def;
}

/** The callable an operation becomes: what `strongroom.<area>.<name>` is. */
export type OperationFn<D> = D extends OperationDef<infer I, infer O, any> ? (actor: Actor, input: z.input<I>) => Promise<z.output<O>> : never;

/** Turns zod issues into the validation error's list of problems, each with its dotted path. */
export function toValidationError(error: z.ZodError): ValidationError {
  return new ValidationError(error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })));
}

/** One call as an observer sees it: filled in as the call proceeds. */
export interface ObservedCall {
  readonly key: string;
  readonly actor: Actor;
  /** The raw input until it validates, then the parsed one. */
  input: unknown;
  /** What the operation's middleware resolved to (project, environment, record), once it has. */
  scope: unknown;
  /** True once an entry for this call was written in a transaction that committed. */
  recorded: boolean;
}

/**
 * Watches every operation call: the kernel defines the mechanism, the assembly plugs the audit
 * log in. `begin` may refuse a call by throwing (the log cannot keep up: 503) and returns how this
 * call is tracked, or undefined to leave it alone.
 */
export interface OperationObserver {
  begin(key: string, actor: Actor): CallObserver | undefined;
}

export interface CallObserver {
  /**
   * Once the call's input is valid and its scope resolved, before it runs (and so before its
   * transaction): work on the call's record that depends on its input only, taken out of the
   * transaction. `inTransaction`: the call runs inside one already (nothing may yield then).
   */
  readonly prepare?: (call: ObservedCall, inTransaction: boolean) => Promise<void>;
  /**
   * When set, the call's top-level transactions run it before they commit (until one has
   * committed), with what the transaction's function returned (ids it created, often the answer).
   */
  readonly beforeCommit?: (tx: Context, call: ObservedCall, value: unknown) => Promise<void>;
  /** Once the call settles, with the error it ended in (undefined on success) or its result. */
  settled(call: ObservedCall, error: unknown, result: unknown): Promise<void> | void;
}

export interface BindOptions {
  /** `<area>.<operation>`: how observers name the call. */
  readonly key: string;
  readonly observer?: OperationObserver;
}

/** Wraps a definition into the callable the core exposes: audience check, input validation, middleware, run. */
export function bindOperation<I extends z.ZodType, O extends z.ZodType, S>(ctx: Context, def: OperationDef<I, O, S>, options?: BindOptions) {
  const execute = async (
    runCtx: Context,
    actor: Actor,
    rawInput: z.input<I>,
    call?: ObservedCall,
    revalidation?: Revalidation,
    prepare?: CallObserver["prepare"],
  ): Promise<z.output<O> | NotModified> => {
    assertAudience(def.audience, actor);
    const parsed = await validateInput(def.input, rawInput ?? {}, runCtx.inTransaction);
    if (!parsed.success) throw toValidationError(parsed.error);
    if (call) call.input = parsed.data;
    try {
      const scope = def.use ? await def.use(runCtx, actor, parsed.data) : (undefined as S);
      if (call) call.scope = scope;
      // Read before the answer: the answer is then at least as new as the revision it is sent under.
      if (revalidation && def.revision) {
        const revision = await def.revision(runCtx, actor, parsed.data, scope);
        revalidation.revision = revision;
        if (revalidation.holds(revision)) return NOT_MODIFIED;
      }
      if (call && prepare) await prepare(call, runCtx.inTransaction);
      return (await def.run(runCtx, actor, parsed.data, scope)) as z.output<O>;
    } catch (error) {
      // Operations check uniqueness up front for a precise message; this covers the race they cannot see.
      if (error instanceof UniqueViolationError) {
        throw new BadRequestError(`A record with the same ${error.columns.join(", ")} already exists`);
      }
      throw error;
    }
  };
  const observer = options?.observer;
  if (!observer) return (actor: Actor, rawInput: z.input<I>, revalidation?: Revalidation) => execute(ctx, actor, rawInput, undefined, revalidation);
  const key = options.key;
  // A revalidated call is recorded like any other read: the caller learns the answer still holds.
  return async (actor: Actor, rawInput: z.input<I>, revalidation?: Revalidation): Promise<z.output<O> | NotModified> => {
    const watcher = observer.begin(key, actor);
    if (!watcher) return execute(ctx, actor, rawInput, undefined, revalidation);
    const call: ObservedCall = { key, actor, input: rawInput, scope: undefined, recorded: false };
    const before = watcher.beforeCommit;
    const runCtx = before
      ? ctx.withBeforeCommit(async (tx, value) => {
          if (call.recorded) return;
          await before(tx, call, value);
          tx.afterCommit(() => {
            call.recorded = true;
          });
        })
      : ctx;
    let result: z.output<O> | NotModified;
    try {
      result = await execute(runCtx, actor, rawInput, call, revalidation, watcher.prepare);
    } catch (error) {
      await watcher.settled(call, error, undefined);
      throw error;
    }
    await watcher.settled(call, undefined, result);
    return result;
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
