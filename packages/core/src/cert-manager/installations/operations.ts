import { defineOperation } from "../../kernel/operation.js";
import type { Where } from "../../storage/table.js";
import { type InstallationRow, certificateCounts, toInstallationObject } from "./repository.js";
import { installationListOutput, installationOutput, installationRefInput, listInstallationsInput } from "./schemas.js";
import { openCertificateProject, openCertificateRecord } from "../project-scope.js";
import { blankToUndefined } from "../query-fields.js";

export const installationOperations = {
  list: defineOperation({
    name: "list",
    summary:
      "List the places certificates were found, newest first; filter by discovery job or certificate, and `search` the name, " +
      "host name or IP address (case-insensitive)",
    audience: "principal",
    input: listInstallationsInput,
    output: installationListOutput,
    async run(ctx, actor, input) {
      const { project } = await openCertificateProject(ctx, actor, input.projectId, "pki-installations", "read");
      const empty = { installations: [], totalCount: 0 };
      let ids: string[] | undefined;
      if (input.certificateId) {
        const links = await ctx.storage.tables.installationCertificates.find({ projectId: project.id, certificateId: input.certificateId });
        if (links.length === 0) return empty;
        ids = links.map((link) => link.installationId);
      }
      const search = blankToUndefined(input.search);
      const where: Where<InstallationRow> = {
        projectId: project.id,
        ...(input.discoveryId ? { discoveryId: input.discoveryId } : {}),
        ...(ids ? { id: { in: ids } } : {}),
        ...(search ? { $or: [{ name: { contains: search } }, { host: { contains: search } }, { ipAddress: { contains: search } }] } : {}),
      };
      const table = ctx.storage.tables.certificateInstallations;
      const [rows, totalCount] = await Promise.all([
        table.find(where, { orderBy: [["createdAt", "desc"], ["id", "desc"]], offset: input.offset, limit: input.limit }),
        table.count(where),
      ]);
      const counts = await certificateCounts(ctx.storage, rows.map((row) => row.id));
      return { installations: rows.map((row) => toInstallationObject(row, counts.get(row.id) ?? 0)), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an installation and the certificates it presented at its latest scan, leaf first",
    audience: "principal",
    input: installationRefInput,
    output: installationOutput,
    async run(ctx, actor, input) {
      const found = await ctx.storage.tables.certificateInstallations.get(input.installationId);
      const { row } = await openCertificateRecord(ctx, actor, found, "Installation", "pki-installations", "read");
      const links = await ctx.storage.tables.installationCertificates.find({ installationId: row.id }, { orderBy: [["position", "asc"]] });
      const rows = links.length ? await ctx.storage.tables.certificates.find({ id: { in: links.map((link) => link.certificateId) } }) : [];
      const byId = new Map(rows.map((certificate) => [certificate.id, certificate]));
      const certificates = links.flatMap((link) => {
        const certificate = byId.get(link.certificateId);
        if (!certificate) return [];
        const { id, commonName, fingerprint, serialNumber, notAfter, isCA } = certificate;
        return [{ id, commonName, fingerprint, serialNumber, notAfter, isCA }];
      });
      return { installation: toInstallationObject(row, links.length), certificates };
    },
  }),
};
