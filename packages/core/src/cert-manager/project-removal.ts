import { defineRepository } from "../kernel/context.js";
import { tablesOf } from "../storage/table.js";
import { certificateTables } from "./tables.js";

/**
 * The certificate manager's part of a project deletion (tenancy's `projectRemoved`, see
 * src/hooks.ts): alerts with their channels and notifications, installations, discovery jobs,
 * certificates and CRLs, profiles and CAs, dependents first.
 */
export const certManagerRemoval = defineRepository("cert-manager.project-removal", (ctx) => {
  const t = tablesOf(ctx.storage, certificateTables);
  return {
    async removeProject(projectId: string): Promise<void> {
      const alerts = await t.certificateAlerts.find({ projectId });
      if (alerts.length) await t.certificateAlertNotifications.delete({ alertId: { in: alerts.map((a) => a.id) } });
      await t.certificateAlertChannels.delete({ projectId });
      await t.certificateAlerts.delete({ projectId });
      await t.installationCertificates.delete({ projectId });
      await t.certificateInstallations.delete({ projectId });
      await t.discoveryJobs.delete({ projectId });
      await t.certificates.delete({ projectId });
      await t.certificateRevocationLists.delete({ projectId });
      await t.certificateProfiles.delete({ projectId });
      await t.certificateAuthorities.delete({ projectId });
    },
  };
});
