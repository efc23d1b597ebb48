import type { Actor } from "../kernel/actor.js";
import { isoTime, type Clock } from "../kernel/clock.js";
import type { CallObserver, ObservedCall, OperationObserver } from "../kernel/operation.js";
import { actorOf, metadataOf, outcomeOf, placeOf, secretKeysOf, withOutcome, type AuditDraft } from "./drafts.js";
import { eventTypeOf, UNAUDITED_OPERATIONS, type AuditEventType } from "./event-types.js";
import type { AuditLog } from "./log.js";
import { prepareInput, type PreparedInput } from "./prepared.js";

/**
 * The draft of one call, from what the call knows when it settles (or, for a change, before it
 * commits: then `created` is what its transaction returned, whose ids the metadata names — the
 * place stays the call's own, so a project's creation stays in its organization's chain).
 */
export function draftOf(
  type: string,
  actor: Actor,
  at: Date,
  input: unknown,
  scope: unknown,
  error: unknown,
  result: unknown,
  created?: unknown,
  prepared?: PreparedInput,
): AuditDraft {
  const who = actorOf(actor);
  const place = placeOf(input, scope, result);
  const metadata = prepared ? withOutcome(prepared.metadata, result ?? created, error) : metadataOf(input, result ?? created, error);
  // Anonymous failures belong to no organization whatever they name (a project id is kept in the
  // metadata): they go to the instance chain, counted per address and minute, so a caller without
  // a token cannot flood a project's chain. What they aimed at is kept, up to ten names.
  const anonymousFailure = who.type === "unknownUser" && error !== undefined;
  if (anonymousFailure) {
    const target = typeof metadata.email === "string" ? metadata.email : typeof metadata.clientId === "string" ? metadata.clientId : undefined;
    if (target) metadata.target = target;
  }
  return {
    eventType: type,
    outcome: outcomeOf(error),
    at: isoTime(at),
    actor: { type: who.type, id: who.id, name: who.name },
    orgId: anonymousFailure ? null : (place.orgId ?? who.orgId),
    projectId: anonymousFailure ? null : place.projectId,
    environment: place.environment,
    secretPath: place.secretPath,
    ipAddress: actor.request?.ip ?? null,
    userAgent: actor.request?.userAgent ?? null,
    metadata,
    secretKeys: prepared?.secretKeys ?? secretKeysOf(input),
    count: 1,
  };
}

/**
 * The audit log plugged into every operation call (`bindOperation`'s observer): a read's entry is
 * queued when it settles; a change's entry is written in its first transaction, before the
 * commit — or, when it opened none, in one of its own before the answer. A refusal or failure is
 * queued like a read (nothing changed). Operations marked `hook` record at their audit hook.
 */
export function auditObserver(log: AuditLog, clock: Clock): OperationObserver {
  const watchers = new Map<string, CallObserver | null>();
  // A change's entry prepared before its transaction, for the input it was prepared from.
  const prepared = new WeakMap<ObservedCall, PreparedInput>();
  const preparedOf = (call: ObservedCall): PreparedInput | undefined => {
    const made = prepared.get(call);
    return made?.input === call.input ? made : undefined;
  };
  const watcherFor = (key: string): CallObserver | null => {
    if (UNAUDITED_OPERATIONS.has(key)) return null;
    // An operation missing from the table is still recorded, under its key; the route-table test names it.
    const type: AuditEventType = eventTypeOf(key) ?? { type: key, kind: "change" };
    const draft = (call: ObservedCall, error: unknown, result: unknown, created?: unknown) =>
      draftOf(type.type, call.actor, clock.now(), call.input, call.scope, error, result, created, preparedOf(call));
    if (type.kind === "read") {
      return {
        settled(call, error, result) {
          if (type.hook && error === undefined) return;
          log.enqueue(draft(call, error, result));
        },
      };
    }
    const settle = async (call: ObservedCall, error: unknown, result: unknown) => {
      if (error !== undefined) log.enqueue(draft(call, error, undefined));
      else await log.write([draft(call, undefined, result)]);
    };
    if (type.after) return { settled: settle };
    return {
      async prepare(call, inTransaction) {
        prepared.set(call, await prepareInput(log.keys, call.input, inTransaction));
      },
      beforeCommit: (tx, call, value) => log.appendIn(tx, [draft(call, undefined, undefined, value)]),
      async settled(call, error, result) {
        if (!call.recorded) return settle(call, error, result);
        // Committed with its entry, then failed: the failure is recorded too, so no outcome is
        // hidden (an operation doing this belongs among the `after` ones; the route test finds it).
        if (error !== undefined) log.enqueue(draft(call, error, undefined));
      },
    };
  };
  return {
    begin(key) {
      let watcher = watchers.get(key);
      if (watcher === undefined) {
        watcher = watcherFor(key);
        watchers.set(key, watcher);
      }
      if (watcher === null) return undefined;
      log.admit();
      return watcher;
    },
  };
}
