import { accessRepository } from "../../access/repository.js";
import { NotFoundError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { pemToDer } from "../../x509/pem.js";
import { authorityRepository } from "../authorities/repository.js";
import { caRefInput } from "../authorities/schemas.js";
import { certificateRecord } from "../scopes.js";
import { currentCrl } from "./current.js";
import { crlRepository } from "./repository.js";
import { CRL_MEDIA_TYPE, crlDownloadInput, crlDownloadOutput, crlListOutput } from "./schemas.js";
import { toCrlObject } from "./view.js";

/** Reading a CA's CRL is `read` on certificate-authorities, checked against the CA's project. */
const authority = certificateRecord("Certificate authority", "certificate-authorities", "read", (ctx, input: { caId: string }) =>
  ctx.repo(authorityRepository).get(input.caId),
);

export const revocationOperations = {
  listCrls: defineOperation({
    name: "listCrls",
    summary:
      "The CA's certificate revocation list (Infisical's list of one): PEM, signed by the CA, listing every certificate it issued " +
      "that is revoked. Re-signed on every revocation, and when asked for within a day of its nextUpdate.",
    audience: "principal",
    input: caRefInput,
    output: crlListOutput,
    use: authority,
    async run(ctx, _actor, _input, { project, record: ca }) {
      return [toCrlObject(await currentCrl(ctx, project, ca))];
    },
  }),

  downloadCrl: defineOperation({
    name: "downloadCrl",
    summary:
      "Download a CA's CRL, DER-encoded, without a token (Infisical's public CRL path): relying parties and `openssl crl " +
      "-inform DER` fetch it from here. `crlId` is the `id` of the CA's CRL object. A CRL is public by nature: it names the " +
      "CA and the serial numbers it revoked, nothing else. Re-signed as the authenticated list is.",
    audience: "public",
    input: crlDownloadInput,
    output: crlDownloadOutput,
    async run(ctx, _actor, input) {
      const notFound = () => new NotFoundError("CRL not found");
      const stored = await ctx.repo(crlRepository).byId(input.crlId);
      if (!stored) throw notFound();
      const ca = await ctx.repo(authorityRepository).get(stored.caId);
      const project = ca && (await ctx.repo(accessRepository).projectById(ca.projectId));
      if (!ca || !project) throw notFound();
      const crl = await currentCrl(ctx, project, ca);
      return { contentType: CRL_MEDIA_TYPE, base64: pemToDer(crl.crlPem, ["X509 CRL"], "The stored CRL").toString("base64") };
    },
  }),
};

