import type { ProjectCipher } from "../cipher.js";
import type { SecretActor, TagRow } from "../tables.js";
import type { PlainSecret } from "./model.js";
import type { SecretObject } from "./schemas.js";

/** What a secret object shows besides the secret itself. */
export interface SecretSurroundings {
  projectId: string;
  environment: string;
  tags: ReadonlyMap<string, TagRow>;
}

export const tagSummary = (tag: TagRow) => ({ id: tag.id, slug: tag.slug, color: tag.color, name: tag.name });

/** Tags of a secret that still exist, in the order they were attached. */
export const tagsOf = (tagIds: readonly string[], tags: ReadonlyMap<string, TagRow>): TagRow[] =>
  tagIds.flatMap((id) => {
    const tag = tags.get(id);
    return tag ? [tag] : [];
  });

/** The slugs of a secret's tags that still exist: what permission checks and events see. */
export const tagSlugsOf = (tagIds: readonly string[], tags: ReadonlyMap<string, TagRow>): string[] => tagsOf(tagIds, tags).map((t) => t.slug);

/** The answer's `actor`: the stored one plus `groupId`, field by field (a spread followed by a new field is slow in V8). */
const actorObject = (actor: SecretActor) => ({
  actorId: actor.actorId,
  actorType: actor.actorType,
  name: actor.name,
  membershipId: actor.membershipId,
  groupId: null,
});

/** `hidden`: the caller may describe the secret but not read its value, which was left sealed. */
export function toSecretObject(secret: PlainSecret, around: SecretSurroundings, hidden: boolean): SecretObject {
  return {
    id: secret.id,
    _id: secret.id,
    workspace: around.projectId,
    workspaceId: around.projectId,
    environment: around.environment,
    folderId: secret.folder.id,
    secretPath: secret.folder.path,
    secretKey: secret.key,
    secretValue: hidden ? "" : secret.value,
    secretValueHidden: hidden,
    secretComment: secret.comment,
    secretReminderNote: secret.reminderNote,
    secretReminderRepeatDays: secret.reminderRepeatDays,
    skipMultilineEncoding: secret.skipMultilineEncoding,
    version: secret.version,
    type: secret.type,
    tags: tagsOf(secret.tagIds, around.tags).map(tagSummary),
    secretMetadata: secret.metadata.map((m) => ({ key: m.key, value: hidden && m.isEncrypted ? "" : m.value, isEncrypted: m.isEncrypted })),
    isRotatedSecret: false,
    rotationId: null,
    actor: secret.actor ? actorObject(secret.actor) : null,
    createdAt: secret.createdAt,
    updatedAt: secret.updatedAt,
  };
}

/**
 * SPEC.md's ciphertext view of a secret (tag attach): name, value and comment each sealed afresh
 * under the project's data key (the store keeps them in one seal), never a plaintext value.
 */
export function toEncryptedSecretObject(secret: PlainSecret, cipher: ProjectCipher, around: SecretSurroundings) {
  const key = cipher.sealParts(secret.key, secret.id);
  const value = cipher.sealParts(secret.value, secret.id);
  const comment = cipher.sealParts(secret.comment, secret.id);
  return {
    id: secret.id,
    _id: secret.id,
    workspace: around.projectId,
    environment: around.environment,
    folderId: secret.folder.id,
    userId: secret.type === "personal" ? secret.ownerId : null,
    version: secret.version,
    type: secret.type,
    secretKeyCiphertext: key.ciphertext,
    secretKeyIV: key.iv,
    secretKeyTag: key.tag,
    secretValueCiphertext: value.ciphertext,
    secretValueIV: value.iv,
    secretValueTag: value.tag,
    secretCommentCiphertext: comment.ciphertext,
    secretCommentIV: comment.iv,
    secretCommentTag: comment.tag,
    secretReminderNote: secret.reminderNote,
    secretReminderRepeatDays: secret.reminderRepeatDays,
    skipMultilineEncoding: secret.skipMultilineEncoding,
    algorithm: "aes-256-gcm" as const,
    keyEncoding: "base64" as const,
    // Encrypted metadata values stay out: this view never carries anything readable that is secret.
    metadata: secret.metadata.map((m) => ({ key: m.key, isEncrypted: m.isEncrypted, value: m.isEncrypted ? "" : m.value })),
    tags: tagsOf(secret.tagIds, around.tags).map(tagSummary),
    createdAt: secret.createdAt,
    updatedAt: secret.updatedAt,
  };
}

/**
 * Folder path, then name, then the shared secret before a personal override of the same name (so
 * a client that sets variables in list order ends with the override): a stable order, so equal
 * content always serializes (and hashes) equally.
 */
export function sortSecrets<T extends { secretPath: string; secretKey: string; type: string }>(secrets: T[]): T[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const rank = (type: string) => (type === "shared" ? 0 : 1);
  return secrets.sort((a, b) => cmp(a.secretPath, b.secretPath) || cmp(a.secretKey, b.secretKey) || rank(a.type) - rank(b.type));
}
