import type { ProjectAccess } from "../../access/project-access.js";
import type { EnvironmentRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import type { ProjectCipher } from "../cipher.js";
import { folderResidents, type FolderResident } from "../hooks.js";
import { importRepository } from "../imports/repository.js";
import { parentPath } from "../paths.js";
import { decodeSecret, type FolderRef, type PlainSecret } from "../secrets/model.js";
import { secretRepository } from "../secrets/repository.js";
import { requireSecretChange } from "../secrets/visibility.js";
import { tagRepository } from "../tags/repository.js";

/** A secret a folder rename moves: as it is, and the path it moves to. */
export interface MovedSecret {
  readonly secret: PlainSecret;
  readonly toPath: string;
}

/**
 * A folder rename moves everything below it to new paths, so it is authorized like a move
 * (DESIGN.md §11, "as it is and as it will be"): `edit` on each moved folder, secret, import and
 * resident of another area (proxied services), both at the old path and at the new one. A
 * rename never carries anything out of a scope the caller is denied, nor into one where it
 * could not make the change. `subtree` is the folder and everything below it, at their old paths.
 * Returns the secrets it moves (already opened to check them), for the rename's events.
 */
export async function authorizeFolderMove(
  tx: Context,
  scope: { access: ProjectAccess; cipher: ProjectCipher; env: EnvironmentRow },
  subtree: readonly FolderRef[],
  from: string,
  to: string,
): Promise<MovedSecret[]> {
  const { access, cipher, env } = scope;
  const environment = env.slug;
  const moved = (path: string) => to + path.slice(from.length);
  const place = (path: string) => ({ environment, secretPath: path });

  for (const folder of subtree) {
    access.requireChange("edit", "secret-folders", place(parentPath(folder.path)), place(parentPath(moved(folder.path))));
  }

  const folderIds = subtree.map((f) => f.id);
  const rows = await tx.repo(secretRepository).inFolders(folderIds);
  const movedSecrets: MovedSecret[] = [];
  if (rows.length) {
    const tags = await tx.repo(tagRepository).ofProject(env.projectId);
    const byId = new Map(subtree.map((f) => [f.id, f]));
    for (const row of rows) {
      const folder = byId.get(row.folderId)!;
      const secret = decodeSecret(cipher, row, folder);
      const after = { ...secret, folder: { id: folder.id, path: moved(folder.path) } };
      requireSecretChange(access, { environment, secret }, { environment, secret: after }, tags);
      movedSecrets.push({ secret, toPath: after.folder.path });
    }
  }

  for (const entry of await tx.repo(importRepository).ofFolders(subtree)) {
    const path = subtree.find((f) => f.id === entry.folderId)!.path;
    access.requireChange("edit", "secret-imports", place(path), place(moved(path)));
  }

  const residents: FolderResident[] = [];
  await tx.emit(folderResidents, { folderIds, residents });
  for (const resident of residents) {
    const path = subtree.find((f) => f.id === resident.folderId)!.path;
    access.requireChange("edit", resident.subject, place(path), place(moved(path)));
  }
  return movedSecrets;
}
