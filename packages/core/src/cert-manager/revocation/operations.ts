import { defineOperation } from "../../kernel/operation.js";
import { authorityRepository } from "../authorities/repository.js";
import { caRefInput } from "../authorities/schemas.js";
import { certificateRecord } from "../scopes.js";
import { currentCrl } from "./current.js";
import { crlListOutput } from "./schemas.js";
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
};

