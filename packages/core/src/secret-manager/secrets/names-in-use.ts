import { PermissionDeniedError } from "../../kernel/errors.js";
import { secretNameUsers, type SecretNameUser } from "../hooks.js";
import type { PlainSecret } from "./model.js";
import { permissionObject } from "./visibility.js";
import type { WriteScope } from "./write-scope.js";

/**
 * A credential is as strong as reading it (issue 15, principle 5). A proxied service's credential
 * names a secret of its folder and is resolved by that name whenever the proxy brokers it, so
 * renaming a secret into that name hands its value to the service's host as surely as pointing
 * the service at another secret would. Such a rename takes `readValue` on the secret as it is and
 * as it will be; renaming a secret away from a used name, or to a name nothing uses, does not.
 */
export async function requireReadsForNamesInUse(w: WriteScope, changes: readonly { current: PlainSecret; next: PlainSecret }[]): Promise<void> {
  // Credentials resolve shared secrets only.
  const renamed = changes.filter(({ current, next }) => current.key !== next.key && next.type === "shared");
  if (renamed.length === 0) return;
  const users: SecretNameUser[] = [];
  await w.context.emit(secretNameUsers, { folderIds: [...new Set(renamed.map(({ next }) => next.folder.id))], users });
  for (const { current, next } of renamed) {
    const user = users.find((u) => u.folderId === next.folder.id && u.secretKey === next.key);
    if (!user) continue;
    for (const state of [current, next]) {
      if (!w.access.can("readValue", "secrets", permissionObject(w.env.slug, state.folder.path, state.key, state.tagIds, w.tags))) {
        throw new PermissionDeniedError(
          `You are not allowed to readValue secret '${current.key}' in ${w.env.slug}:${current.folder.path}, so you cannot rename it to ` +
            `'${next.key}': ${user.what} of that folder hands out the secret of that name`,
        );
      }
    }
  }
}
