import { defineOperation } from "../../kernel/operation.js";
import { blankToUndefined } from "../query-fields.js";
import { type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import { installationRepository } from "./repository.js";
import { installationListOutput, installationOutput, installationRefInput, listInstallationsInput } from "./schemas.js";
import { toInstallationObject, toLinkedCertificate } from "./view.js";

const installation = (action: CertificateAction) =>
  certificateRecord("Installation", "pki-installations", action, (ctx, input: { installationId: string }) =>
    ctx.repo(installationRepository).get(input.installationId),
  );

export const installationOperations = {
  list: defineOperation({
    name: "list",
    summary:
      "List the places certificates were found, newest first; filter by discovery job or certificate, and `search` the name, " +
      "host name or IP address (case-insensitive)",
    audience: "principal",
    input: listInstallationsInput,
    output: installationListOutput,
    use: certificateProject("pki-installations", "read"),
    async run(ctx, _actor, input, { project }) {
      const installations = ctx.repo(installationRepository);
      const filter = { discoveryId: input.discoveryId, certificateId: input.certificateId, search: blankToUndefined(input.search) };
      const { rows, totalCount } = await installations.page(project.id, filter, input);
      const counts = await installations.certificateCounts(rows.map((row) => row.id));
      return { installations: rows.map((row) => toInstallationObject(row, counts.get(row.id) ?? 0)), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an installation and the certificates it presented at its latest scan, leaf first",
    audience: "principal",
    input: installationRefInput,
    output: installationOutput,
    use: installation("read"),
    async run(ctx, _actor, _input, { record }) {
      const { linked, certificates } = await ctx.repo(installationRepository).presentedCertificates(record.id);
      return { installation: toInstallationObject(record, linked), certificates: certificates.map(toLinkedCertificate) };
    },
  }),
};
