import { projectScope } from "../../access/scope.js";
import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { issuanceFromCertificate } from "../../x509/certificate-reader.js";
import { authorityRepository } from "../authorities/repository.js";
import { issuesAuthority, mergeProfileDefaults } from "../profiles/merge.js";
import { profileRepository } from "../profiles/repository.js";
import { blankToUndefined } from "../query-fields.js";
import { refreshCrl } from "../revocation/current.js";
import { CERT_MANAGER_PROJECT, type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import { issueAndRecord, signerOf } from "./issuing.js";
import { certificateRepository } from "./repository.js";
import {
  certificateListOutput,
  certificateOutput,
  certificateRefInput,
  issueCertificateInput,
  issueCertificateOutput,
  listCertificatesInput,
  listProfileCertificatesInput,
  listProjectCertificatesInput,
  renewCertificateInput,
  renewCertificateOutput,
  revokeCertificateInput,
  revokeCertificateOutput,
} from "./schemas.js";
import { toCertificateObject } from "./view.js";

/** Issuing is `create` on certificates, checked against the profile's project. */
const issuingProfile = certificateRecord("Certificate profile", "certificates", "create", (ctx, input: { profileId: string }) =>
  ctx.repo(profileRepository).get(input.profileId),
);

/** Reading a profile's certificates is `read` on certificates, checked against the profile's project. */
const profileCertificates = certificateRecord("Certificate profile", "certificates", "read", (ctx, input: { id: string }) =>
  ctx.repo(profileRepository).get(input.id),
);

/** A cert-manager project named by slug, as Infisical's `/api/v2/workspace/{slug}/…` paths name it. */
const projectCertificatesBySlug = projectScope<{ slug: string }>({
  project: (input) => ({ projectSlug: input.slug }),
  type: CERT_MANAGER_PROJECT,
  permission: { action: "read", subject: "certificates" },
});

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
    async run(ctx, _actor, input, { access, project, record: profile }) {
      if (profile.issuerType === "ca" && !profile.caId) throw new BadRequestError("The profile's CA no longer exists");
      const signer = await signerOf(ctx, project, profile.issuerType === "ca" ? profile.caId : null);
      const signerKeyAlgorithm = signer?.issuer.keyAlgorithm;
      const issuance = mergeProfileDefaults(profile.defaults, input.attributes, { ...(signerKeyAlgorithm ? { signerKeyAlgorithm } : {}), now: ctx.clock.now() });
      // A CA certificate (and its private key) makes its holder an issuer: that is the CA permission,
      // whether the request or the profile's defaults ask for it.
      if (issuesAuthority(issuance)) access.require("create", "certificate-authorities");
      const { certificate } = await issueAndRecord(ctx, project, {
        signer,
        issuance,
        ...(input.csr !== undefined ? { csr: input.csr } : {}),
        profileId: profile.id,
        removeRootsFromChain: input.removeRootsFromChain,
      });
      return { certificate, status: "issued" as const };
    },
  }),

  renew: defineOperation({
    name: "renew",
    summary:
      "Renew a certificate this project issued: a new certificate as the old one was issued (subject, names, usages, key algorithm, " +
      "lifetime), valid from now, from the same CA, with a new key pair (returned once) or for `csr` (required when the old one " +
      "was issued for a CSR). Revoked and discovered certificates are not renewed.",
    audience: "principal",
    input: renewCertificateInput,
    output: renewCertificateOutput,
    use: certificate("create"),
    async run(ctx, _actor, input, { access, project, record: old }) {
      if (old.source !== "issued") throw new BadRequestError("Only certificates issued here can be renewed");
      if (old.revokedAt) throw new BadRequestError("A revoked certificate cannot be renewed");
      if (old.issuance?.fromCsr && input.csr === undefined) throw new BadRequestError("This certificate was issued for a CSR: send a new csr to renew it");
      const signer = await signerOf(ctx, project, old.caId);
      // Rows stored before issuance was recorded are renewed from what the certificate itself says
      // (whether its key came from a CSR is not known: without a csr it gets a new key pair).
      const { fromCsr: _fromCsr, ...issuance } = old.issuance ?? { ...issuanceFromCertificate(old.certificatePem, signer?.issuer.keyAlgorithm), fromCsr: false };
      // A CA certificate makes its holder an issuer, renewed or not.
      if (issuesAuthority(issuance)) access.require("create", "certificate-authorities");
      const { certificate } = await issueAndRecord(ctx, project, {
        signer,
        issuance,
        ...(input.csr !== undefined ? { csr: input.csr } : {}),
        profileId: old.profileId,
        removeRootsFromChain: input.removeRootsFromChain,
        renewedFromId: old.id,
      });
      return { ...certificate, certificateRequestId: certificate.certificateId };
    },
  }),

  revoke: defineOperation({
    name: "revoke",
    summary:
      "Revoke a certificate issued by a CA of the project, with a reason: its CA's CRL is re-signed at once to list it. " +
      "Self-signed and discovered certificates have no CRL to go on and are refused, as is a second revocation.",
    audience: "principal",
    input: revokeCertificateInput,
    output: revokeCertificateOutput,
    use: certificate("delete"),
    async run(ctx, _actor, input, { project, record }) {
      if (record.source !== "issued" || record.caId === null) {
        throw new BadRequestError("Only certificates issued by a CA of this project can be revoked");
      }
      const ca = await ctx.repo(authorityRepository).ofProject(project.id, record.caId);
      if (!ca) throw new BadRequestError("The issuing CA no longer exists");
      const revokedAt = ctx.clock.now().toISOString();
      if (!(await ctx.repo(certificateRepository).revoke(record.id, input.revocationReason, revokedAt))) {
        throw new BadRequestError("The certificate is already revoked");
      }
      await refreshCrl(ctx, project, ca);
      return { message: "Successfully revoked certificate", serialNumber: record.serialNumber, revokedAt };
    },
  }),

  listByProfile: defineOperation({
    name: "listByProfile",
    summary: "List the certificates issued from a profile, newest first; `status` narrows to active, expired or revoked ones",
    audience: "principal",
    input: listProfileCertificatesInput,
    output: certificateListOutput,
    use: profileCertificates,
    async run(ctx, _actor, input, { project, record: profile }) {
      const now = ctx.clock.now();
      const filter = { profileId: profile.id, ...(input.status ? { status: input.status, now } : {}), search: blankToUndefined(input.search) };
      const { rows, totalCount } = await ctx.repo(certificateRepository).page(project.id, filter, input);
      return { certificates: rows.map((row) => toCertificateObject(row, now)), totalCount };
    },
  }),

  listByProject: defineOperation({
    name: "listByProject",
    summary: "List a project's certificates by the project's slug (Infisical's path), newest first",
    audience: "principal",
    input: listProjectCertificatesInput,
    output: certificateListOutput,
    use: projectCertificatesBySlug,
    async run(ctx, _actor, input, { project }) {
      const now = ctx.clock.now();
      const filter = { ...(input.status ? { status: input.status, now } : {}), search: blankToUndefined(input.commonName) };
      const { rows, totalCount } = await ctx.repo(certificateRepository).page(project.id, filter, input);
      return { certificates: rows.map((row) => toCertificateObject(row, now)), totalCount };
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
