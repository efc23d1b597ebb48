import type { Actor } from "../../kernel/actor.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError, NotFoundError } from "../../kernel/errors.js";
import { mapPaced, pacer, unpaced, type Pace } from "../../kernel/pace.js";
import { actorProfile } from "../actor-profile.js";
import { writeCipher } from "../cipher.js";
import { folderRepository } from "../folders/repository.js";
import type { SecretScope } from "../scope.js";
import type { SecretActor, TagRow } from "../tables.js";
import { tagRepository } from "../tags/repository.js";
import { writeSecrets } from "./change-log.js";
import { placeAccess } from "./batching/place-access.js";
import { Rehearsal, type ChangeRecorder, type FolderLookup } from "./batching/rehearsal.js";
import type { FolderRef, SecretType } from "./model.js";
import { secretRepository, type SecretRepository } from "./repository.js";
import type { ReadView } from "./visibility.js";

/** Everything a secret write needs, inside its transaction (or rehearsing outside it: see rehearsal.ts). */
export interface WriteScope extends SecretScope {
  /** The secrets, read and written in the transaction. */
  readonly secrets: SecretRepository;
  readonly folders: FolderLookup;
  readonly log: ChangeRecorder;
  readonly author: SecretActor;
  /** The caller's user or identity id: the owner of the personal overrides it writes. */
  readonly principalId: string;
  readonly now: string;
  readonly tags: ReadonlyMap<string, TagRow>;
  /** How the written secrets are shown back to the caller. */
  readonly view: ReadView;
  /** Called once per item of a long loop: yields to other requests when rehearsing, never in a transaction. */
  readonly pace: Pace;
  /** Reads of other areas (hooks): the transaction, or the plain context when rehearsing. */
  readonly context: Context;
}

export interface WriteOptions {
  /**
   * Prepare the write outside the transaction first (rehearsal.ts), paced so other requests run
   * meanwhile, and keep the transaction to re-reading and writing. For batches: for a single
   * secret the second round of reads costs more than the little it keeps out of the transaction.
   */
  rehearse?: boolean;
}

/** Batches of at least this many items are rehearsed (WriteOptions.rehearse). */
export const REHEARSAL_MIN_ITEMS = 32;

/** Runs `write` in one transaction of the scope's environment; events go out after the commit. */
export async function withSecretWrite<T>(
  ctx: Context,
  actor: Actor,
  scope: SecretScope,
  write: (w: WriteScope) => Promise<T>,
  options: WriteOptions = {},
): Promise<T> {
  const profile = await actorProfile(ctx, actor);
  const now = ctx.clock.now().toISOString();
  // A batch decides what depends only on the folder once per folder.
  const access = options.rehearse ? placeAccess(scope.access) : scope.access;
  const cipher = options.rehearse ? writeCipher(scope.cipher) : scope.cipher;
  const scopeOf = (parts: Pick<WriteScope, "secrets" | "folders" | "log" | "tags" | "pace" | "context">): WriteScope => ({
    ...scope,
    ...parts,
    access,
    cipher,
    author: { actorId: profile.id, actorType: profile.type, name: profile.name, membershipId: scope.access.membership?.id ?? null },
    principalId: profile.id,
    now,
    view: { access, cipher, projectId: scope.project.id, environment: scope.env.slug, tags: parts.tags, viewValue: true },
  });
  const inTransaction = (tx: Context, log: ChangeRecorder, tags: ReadonlyMap<string, TagRow>) =>
    write(scopeOf({ secrets: tx.repo(secretRepository), folders: tx.repo(folderRepository), log, tags, pace: unpaced, context: tx }));

  if (!options.rehearse || ctx.inTransaction) {
    return writeSecrets(ctx, scope.project, async (tx, log) => inTransaction(tx, log, await tx.repo(tagRepository).ofProject(scope.project.id)));
  }
  // Taken before the first read: where the store tells, an unchanged stamp at the write spares reading everything again.
  const stamp = ctx.storage.writeStamp?.();
  const rehearsal = new Rehearsal(scope.project.id, await ctx.repo(tagRepository).ofProject(scope.project.id));
  let outcome: { value: T } | { failure: unknown };
  try {
    const value = await write(
      scopeOf({
        secrets: rehearsal.secrets(ctx.repo(secretRepository)),
        folders: rehearsal.folders(ctx.repo(folderRepository)),
        log: rehearsal.log,
        tags: rehearsal.tags,
        pace: pacer(false),
        context: rehearsal.context(ctx),
      }),
    );
    outcome = { value };
  } catch (failure) {
    outcome = { failure };
  }
  return writeSecrets(ctx, scope.project, async (tx, log) => {
    const untouched = stamp !== undefined && rehearsal.verifiable && tx.storage.writeStamp?.() === stamp;
    if (!untouched && !(await rehearsal.holds(tx))) return inTransaction(tx, log, await tx.repo(tagRepository).ofProject(scope.project.id));
    // The same reads would lead the writer to the same refusal.
    if ("failure" in outcome) throw outcome.failure;
    await rehearsal.perform(tx, log);
    return outcome.value;
  });
}

export const ownerFor = (w: WriteScope, type: SecretType): string => (type === "personal" ? w.principalId : "");

/** The folder of every path the items name; 404 naming every missing one. */
export async function resolveFolders(w: WriteScope, paths: Iterable<string>): Promise<Map<string, FolderRef>> {
  const folders = new Map<string, FolderRef>();
  const missing: string[] = [];
  for (const path of new Set(paths)) {
    const folder = await w.folders.find(w.env.id, path);
    if (folder) folders.set(path, folder);
    else missing.push(path);
  }
  if (missing.length) throw new NotFoundError(`Folder${missing.length > 1 ? "s" : ""} not found in environment '${w.env.slug}': ${missing.join(", ")}`);
  return folders;
}

/**
 * Items grouped by folder and kind (shared, or the caller's personal overrides), ordered by
 * folder id, type and owner: the order every writer locks groups in (see `SecretRepository.ofKind`).
 */
export function groupByKind<T extends { secretPath: string; type: SecretType }>(
  w: WriteScope,
  items: readonly T[],
  folders: ReadonlyMap<string, FolderRef>,
): { folder: FolderRef; type: SecretType; ownerId: string; items: T[] }[] {
  const groups = new Map<string, { folder: FolderRef; type: SecretType; ownerId: string; items: T[] }>();
  for (const item of items) {
    const id = `${item.secretPath}\u0000${item.type}`;
    let group = groups.get(id);
    if (!group) {
      group = { folder: folders.get(item.secretPath) as FolderRef, type: item.type, ownerId: ownerFor(w, item.type), items: [] };
      groups.set(id, group);
    }
    group.items.push(item);
  }
  return [...groups.values()].sort(lockOrder);
}

const lockOrder = (a: { folder: FolderRef; type: string; ownerId: string }, b: { folder: FolderRef; type: string; ownerId: string }): number =>
  compare(a.folder.id, b.folder.id) || compare(a.type, b.type) || compare(a.ownerId, b.ownerId);

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * 400 when two items name the same secret: a batch says once what happens to each. Names are
 * kept by place (path, then type) rather than in one joined string each, which a batch of
 * thousands would make and hash; paced, as the rest of a batch's checks.
 */
export async function assertDistinct(items: readonly { secretPath: string; type: SecretType; key: string }[], pace: Pace): Promise<void> {
  const seen = new Map<string, Map<SecretType, Set<string>>>();
  const repeated = new Set<string>();
  await mapPaced(items, pace, (item) => {
    let byType = seen.get(item.secretPath);
    if (!byType) seen.set(item.secretPath, (byType = new Map()));
    let keys = byType.get(item.type);
    if (!keys) byType.set(item.type, (keys = new Set()));
    if (keys.has(item.key)) repeated.add(describeKey(item.secretPath, item.key));
    else keys.add(item.key);
  });
  if (repeated.size) throw new BadRequestError(`The batch names these secrets more than once: ${[...repeated].join(", ")}`);
}

/** `KEY` at the root, `/path:KEY` elsewhere: how messages name a secret. */
export const describeKey = (secretPath: string, key: string): string => (secretPath === "/" ? key : `${secretPath}:${key}`);
