import type { ProjectRow } from "../../access/tables.js";
import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { withoutRoots } from "../../x509/chain.js";
import { issueCertificate, type IssuerInput } from "../../x509/issue.js";
import type { PreparedIssuer } from "../../x509/issuer.js";
import type { ResolvedIssuance } from "../../x509/resolved-issuance.js";
import { issuerOf } from "../authorities/issuer.js";
import { authorityRepository } from "../authorities/repository.js";
import type { CaRow, CertificateRow } from "../tables.js";
import { certificateRepository } from "./repository.js";

/** Who signs: a CA of the project ready to sign, or nobody (self-signed). */
export type Signer = { ca: CaRow; issuer: PreparedIssuer } | undefined;

/** The CA `caId` of the project ready to sign; none for `null` (self-signed); 400 when it is gone. */
export async function signerOf(ctx: Context, project: ProjectRow, caId: string | null): Promise<Signer> {
  if (caId === null) return undefined;
  const ca = await ctx.repo(authorityRepository).ofProject(project.id, caId);
  if (!ca) throw new BadRequestError("The issuing CA no longer exists");
  return { ca, issuer: await issuerOf(ctx, project, ca) };
}

export interface IssueRequest {
  signer: Signer;
  issuance: ResolvedIssuance;
  csr?: string;
  profileId: string | null;
  removeRootsFromChain: boolean;
  renewedFromId?: string;
}

/** The answer's fields of an issuance (SPEC.md's `certificate` object), and the stored row. */
export interface Issued {
  row: CertificateRow;
  certificate: {
    certificate: string;
    issuingCaCertificate: string;
    certificateChain: string;
    privateKey?: string;
    serialNumber: string;
    certificateId: string;
  };
}

/**
 * Issues a certificate and records it with how it was issued, so it can be renewed as it was. The
 * private key of a generated pair is returned once and never stored.
 */
export async function issueAndRecord(ctx: Context, project: ProjectRow, request: IssueRequest): Promise<Issued> {
  const { signer, issuance } = request;
  const issuer: IssuerInput = signer?.issuer ?? "self-signed";
  const nowDate = ctx.clock.now();
  const issued = await issueCertificate({ ...issuance, issuer, now: nowDate, ...(request.csr !== undefined ? { csrPem: request.csr } : {}) });
  const ca = signer?.ca;
  const issuingCaCertificate = ca ? ca.certificatePem : issued.certificatePem;
  const certificateChain = ca ? ca.certificatePem + ca.certificateChain : issued.certificatePem;
  const { notBefore: _start, ...kept } = issuance;
  const provenance = {
    projectId: project.id,
    caId: ca?.id ?? null,
    profileId: request.profileId,
    keyAlgorithm: issued.keyAlgorithm,
    certificatePem: issued.certificatePem,
    certificateChain,
    issuance: { ...kept, keyAlgorithm: issued.keyAlgorithm, signatureAlgorithm: issued.signatureAlgorithm, fromCsr: request.csr !== undefined },
    ...(request.renewedFromId ? { renewedFromId: request.renewedFromId } : {}),
  };
  // A transaction of its own, though it is one insert: the call's audit entry is then written in
  // it (the audit observer's beforeCommit) and both land in one commit. Outside any transaction
  // the entry would follow in a second transaction, with a second commit.
  const row = await ctx.withTransaction((tx) => tx.repo(certificateRepository).recordIssued(issued, provenance, nowDate.toISOString()));
  return {
    row,
    certificate: {
      certificate: issued.certificatePem,
      issuingCaCertificate,
      certificateChain: request.removeRootsFromChain ? withoutRoots(certificateChain) : certificateChain,
      ...(issued.privateKeyPem !== undefined ? { privateKey: issued.privateKeyPem } : {}),
      serialNumber: issued.serialNumber,
      certificateId: row.id,
    },
  };
}
