import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ProjectRow } from "../../access/tables.js";
import { parseCertificate } from "../../x509/certificate-reader.js";
import { type IssuerInput, issueCertificate } from "../../x509/issue.js";
import type { PreparedIssuer } from "../../x509/issuer.js";
import { issuerOf } from "../authorities/issuer.js";
import { authorityRepository } from "../authorities/repository.js";
import { mergeProfileDefaults } from "../profiles/merge.js";
import { profileRepository } from "../profiles/repository.js";
import { blankToUndefined } from "../query-fields.js";
import { type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import type { CaRow, ProfileRow } from "../tables.js";
import { certificateRepository } from "./repository.js";
import {
  certificateListOutput,
  certificateOutput,
  certificateRefInput,
  issueCertificateInput,
  issueCertificateOutput,
  listCertificatesInput,
} from "./schemas.js";
import { toCertificateObject } from "./view.js";

/** The profile's CA ready to sign, or nothing for a self-signed profile (400 when its CA is gone). */
async function profileSigner(ctx: Context, project: ProjectRow, profile: ProfileRow): Promise<{ ca: CaRow; issuer: PreparedIssuer } | undefined> {
  if (profile.issuerType !== "ca") return undefined;
  const ca = profile.caId ? await ctx.repo(authorityRepository).ofProject(profile.projectId, profile.caId) : undefined;
  if (!ca) throw new BadRequestError("The profile's CA no longer exists");
  return { ca, issuer: await issuerOf(ctx, project, ca) };
}

/** Issuing is `create` on certificates, checked against the profile's project. */
const issuingProfile = certificateRecord("Certificate profile", "certificates", "create", (ctx, input: { profileId: string }) =>
  ctx.repo(profileRepository).get(input.profileId),
);

const certificate = (action: CertificateAction) =>
  certificateRecord("Certificate", "certificates", action, (ctx, input: { certificateId: string }) =>
    ctx.repo(certificateRepository).get(input.certificateId),
  );

export const certificateOperations = {
  issue: defineOperation({
    name: "issue",
    summary:
      "Issue a certificate from a profile: the profile's defaults merged with `attributes` (the request wins). With `csr` the " +
      "certificate certifies the CSR's key; otherwise a key pair is generated and its private key returned once, never stored.",
    audience: "principal",
    input: issueCertificateInput,
    output: issueCertificateOutput,
    use: issuingProfile,
    async run(ctx, _actor, input, { project, record: profile }) {
      const signer = await profileSigner(ctx, project, profile);
      const issuer: IssuerInput = signer?.issuer ?? "self-signed";
      const signerKeyAlgorithm = signer?.issuer.keyAlgorithm;
      const resolved = mergeProfileDefaults(profile.defaults, input.attributes, signerKeyAlgorithm ? { signerKeyAlgorithm } : {});
      const nowDate = ctx.clock.now();
      const issued = await issueCertificate({ ...resolved, issuer, now: nowDate, ...(input.csr !== undefined ? { csrPem: input.csr } : {}) });
      const ca = signer?.ca;
      const issuingCaCertificate = ca ? ca.certificatePem : issued.certificatePem;
      const certificateChain = ca ? ca.certificatePem + ca.certificateChain : issued.certificatePem;
      const row = await ctx.repo(certificateRepository).recordIssued(
        parseCertificate(issued.certificatePem),
        {
          projectId: profile.projectId,
          caId: ca?.id ?? null,
          profileId: profile.id,
          keyAlgorithm: issued.keyAlgorithm,
          certificatePem: issued.certificatePem,
          certificateChain,
        },
        nowDate.toISOString(),
      );
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
    use: certificateProject("certificates", "read"),
    async run(ctx, _actor, input, { project }) {
      const filter = { ...(input.source ? { source: input.source } : {}), search: blankToUndefined(input.search) };
      const { rows, totalCount } = await ctx.repo(certificateRepository).page(project.id, filter, input);
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
    use: certificate("read"),
    async run(ctx, _actor, _input, { record }) {
      return { certificate: toCertificateObject(record, ctx.clock.now()) };
    },
  }),
};
