import { bundleRepository } from "./agent-vault/bundles/repository.js";
import { countRefusedServiceRemovalsInFolders, countRefusedServiceRemovalsInProject } from "./agent-vault/services/removal-check.js";
import { serviceRepository } from "./agent-vault/services/repository.js";
import { certManagerRemoval } from "./cert-manager/project-removal.js";
import { dynamicSecretRepository } from "./dynamic-secrets/secrets/repository.js";
import type { HookRegistry } from "./kernel/context.js";
import { cmekRepository } from "./kms/keys/repository.js";
import { environmentPurged, folderResidents, foldersRemoved, foldersRemoving, secretNameUsers } from "./secret-manager/hooks.js";
import { secretManagerRemoval } from "./secret-manager/project-removal.js";
import { countRefusedProjectRemovals } from "./secret-manager/removal-check.js";
import { secretRepository } from "./secret-manager/secrets/repository.js";
import { membershipsRemoved, projectRemoved, projectRemoving } from "./tenancy/hooks.js";

/**
 * Where one area acts on another's changes, registered once per instance: each line names the
 * hook an area emits (in its repository) and the handler another area runs in that transaction.
 */
export function registerHooks(hooks: HookRegistry): HookRegistry {
  return (
    hooks
      // Deleting a container deletes only what the actor may delete: each area counts the rest.
      .on(foldersRemoving, (ctx, { access, env, folders, refused }) => countRefusedServiceRemovalsInFolders(ctx, access, env, folders, refused))
      .on(projectRemoving, (ctx, { access, project, refused }) => countRefusedProjectRemovals(ctx, access, project, refused))
      .on(projectRemoving, (ctx, { access, project, refused }) => countRefusedServiceRemovalsInProject(ctx, access, project.id, refused))
      // Proxied services live in folders: they go with them, out of their access bundles too.
      .on(foldersRemoved, (ctx, { folderIds, at }) => ctx.repo(serviceRepository).removeInFolders(folderIds, at))
      .on(environmentPurged, (ctx, { envId, at }) => ctx.repo(serviceRepository).removeInEnvironment(envId, at))
      // A folder rename moves the services in it: the rename must be allowed on them too.
      .on(folderResidents, async (ctx, { folderIds, residents }) => {
        for (const service of await ctx.repo(serviceRepository).inFolders(folderIds)) {
          residents.push({ subject: "proxied-services", folderId: service.folderId, name: service.name });
        }
      })
      // Credentials name the secret they hand out: renaming a secret into such a name must be allowed as reading it.
      .on(secretNameUsers, async (ctx, { folderIds, users }) => {
        const services = ctx.repo(serviceRepository);
        const inFolders = await services.inFolders(folderIds);
        const credentials = await services.credentialsOf(inFolders.map((s) => s.id));
        for (const service of inFolders) {
          for (const credential of credentials.get(service.id) ?? []) {
            if (credential.secretKey !== null) users.push({ folderId: service.folderId, secretKey: credential.secretKey, what: "a proxied service" });
          }
        }
      })
      // Dynamic secrets live in folders too; their leases must still be revoked at the provider,
      // which cannot happen inside this transaction: they are retired and the expiry job revokes.
      .on(foldersRemoved, (ctx, { folderIds, at }) => ctx.repo(dynamicSecretRepository).retireInFolders(folderIds, at))
      .on(environmentPurged, (ctx, { envId, at }) => ctx.repo(dynamicSecretRepository).retireInEnvironment(envId, at))
      // A deleted project takes everything in it, every area's part in the same transaction.
      .on(projectRemoved, (ctx, { projectId, at }) => ctx.repo(serviceRepository).removeInProject(projectId, at))
      .on(projectRemoved, (ctx, { projectId, at }) => ctx.repo(bundleRepository).removeOfProject(projectId, at))
      .on(projectRemoved, (ctx, { projectId }) => ctx.repo(secretManagerRemoval).removeProject(projectId))
      .on(projectRemoved, (ctx, { projectId }) => ctx.repo(certManagerRemoval).removeProject(projectId))
      .on(projectRemoved, (ctx, { projectId }) => ctx.repo(cmekRepository).removeProject(projectId))
      // A removed membership takes what it owned: personal overrides, bundle grants and their sessions.
      .on(membershipsRemoved, async (ctx, { memberships, at }) => {
        for (const { projectId, principal } of memberships) {
          await ctx.repo(secretRepository).removePersonalOf(projectId, principal.id);
          await ctx.repo(bundleRepository).removeGrantee(projectId, { type: principal.kind, id: principal.id }, at);
        }
      })
      // The project's data key goes with it, and with it any way to revoke a lease later: refused while leases live.
      .on(projectRemoved, (ctx, { projectId }) => ctx.repo(dynamicSecretRepository).removeProject(projectId))
  );
}
