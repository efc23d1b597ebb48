import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { Where } from "../../storage/table.js";
import type { KeyAlgorithm } from "../../x509/algorithms.js";
import { type CaRow, issuerOf } from "../authorities/repository.js";
import { parseCertificate } from "../../x509/certificate-reader.js";
import { type CertificateRow, certificateRow, toCertificateObject } from "./repository.js";
import {
  certificateListOutput,
  certificateOutput,
  certificateRefInput,
  issueCertificateInput,
  issueCertificateOutput,
  listCertificatesInput,
} from "./schemas.js";
import { type IssuerInput, issueCertificate } from "../../x509/issue.js";
import { mergeProfileDefaults } from "../profiles/merge.js";
import { openCertificateProject, openCertificateRecord } from "../project-scope.js";
import { blankToUndefined } from "../query-fields.js";

export const certificateOperations = {
  issue: defineOperation({
    name: "issue",
    summary:
      "Issue a certificate from a profile: the profile's defaults merged with `attributes` (the request wins). With `csr` the " +
      "certificate certifies the CSR's key; otherwise a key pair is generated and its private key returned once, never stored.",
    audience: "principal",
    input: issueCertificateInput,
    output: issueCertificateOutput,
    async run(ctx, actor, input) {
      const found = await ctx.storage.tables.certificateProfiles.get(input.profileId);
      const { row: profile, access } = await openCertificateRecord(ctx, actor, found, "Certificate profile", "certificates", "create");
      let ca: CaRow | undefined;
      let issuer: IssuerInput = "self-signed";
      let signerKeyAlgorithm: KeyAlgorithm | undefined;
      if (profile.issuerType === "ca") {
        ca = profile.caId ? await ctx.storage.tables.certificateAuthorities.get(profile.caId) : undefined;
        if (!ca || ca.projectId !== profile.projectId) throw new BadRequestError("The profile's CA no longer exists");
        const prepared = await issuerOf(ctx, access.project, ca);
        issuer = prepared;
        signerKeyAlgorithm = prepared.keyAlgorithm;
      }
      const resolved = mergeProfileDefaults(profile.defaults, input.attributes, signerKeyAlgorithm ? { signerKeyAlgorithm } : {});
      const nowDate = ctx.clock.now();
      const issued = await issueCertificate({ ...resolved, issuer, now: nowDate, ...(input.csr !== undefined ? { csrPem: input.csr } : {}) });
      const issuingCaCertificate = ca ? ca.certificatePem : issued.certificatePem;
      const certificateChain = ca ? ca.certificatePem + ca.certificateChain : issued.certificatePem;
      const row = certificateRow(
        parseCertificate(issued.certificatePem),
        {
          projectId: profile.projectId,
          source: "issued",
          caId: ca?.id ?? null,
          profileId: profile.id,
          keyAlgorithm: issued.keyAlgorithm,
          certificatePem: issued.certificatePem,
          certificateChain,
        },
        nowDate.toISOString(),
      );
      await ctx.storage.tables.certificates.insert(row);
      return {
        certificate: {
          certificate: issued.certificatePem,
          issuingCaCertificate,
          certificateChain,
          ...(issued.privateKeyPem !== undefined ? { privateKey: issued.privateKeyPem } : {}),
          serialNumber: issued.serialNumber,
          certificateId: row.id,
        },
        status: "issued" as const,
      };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the certificates of a project, issued and discovered, newest first",
    audience: "principal",
    input: listCertificatesInput,
    output: certificateListOutput,
    async run(ctx, actor, input) {
      const { project } = await openCertificateProject(ctx, actor, input.projectId, "certificates", "read");
      const search = blankToUndefined(input.search);
      const where: Where<CertificateRow> = {
        projectId: project.id,
        ...(input.source ? { source: input.source } : {}),
        ...(search ? { commonName: { contains: search } } : {}),
      };
      const table = ctx.storage.tables.certificates;
      const [rows, totalCount] = await Promise.all([
        table.find(where, { orderBy: [["createdAt", "desc"], ["id", "desc"]], offset: input.offset, limit: input.limit }),
        table.count(where),
      ]);
      const now = ctx.clock.now();
      return { certificates: rows.map((row) => toCertificateObject(row, now)), totalCount };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get a stored certificate (public material only)",
    audience: "principal",
    input: certificateRefInput,
    output: certificateOutput,
    async run(ctx, actor, input) {
      const found = await ctx.storage.tables.certificates.get(input.certificateId);
      const { row } = await openCertificateRecord(ctx, actor, found, "Certificate", "certificates", "read");
      return { certificate: toCertificateObject(row, ctx.clock.now()) };
    },
  }),
};
