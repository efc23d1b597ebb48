import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { newId } from "../../kernel/ids.js";
import { defineOperation } from "../../kernel/operation.js";
import type { ProjectRow } from "../../access/tables.js";
import { createIntermediateCa, createRootCa } from "../../x509/issue.js";
import { type CertificateAction, certificateProject, certificateRecord } from "../scopes.js";
import { certificateSealer } from "../sealing.js";
import type { CaRow } from "../tables.js";
import { caKeyBinding, issuerOf } from "./issuer.js";
import { authorityRepository } from "./repository.js";
import { caListOutput, caOutput, caRefInput, createCaInput, listCasInput } from "./schemas.js";
import { toCaObject } from "./view.js";

const DAY_MS = 86_400_000;

/** The parent of a new intermediate: a CA of the same project (400 otherwise, as the id came in the body). */
async function parentCa(ctx: Context, project: ProjectRow, type: "root" | "intermediate", parentCaId: string | undefined): Promise<CaRow | undefined> {
  if (type === "root") {
    if (parentCaId) throw new BadRequestError("A root CA has no parentCaId");
    return undefined;
  }
  if (!parentCaId) throw new BadRequestError("An intermediate CA needs parentCaId");
  const parent = await ctx.repo(authorityRepository).ofProject(project.id, parentCaId);
  if (!parent) throw new BadRequestError("parentCaId does not name a CA of this project");
  return parent;
}

const authority = (action: CertificateAction) =>
  certificateRecord("Certificate authority", "certificate-authorities", action, (ctx, input: { caId: string }) =>
    ctx.repo(authorityRepository).get(input.caId),
  );

export const certificateAuthorityOperations = {
  create: defineOperation({
    name: "create",
    summary:
      "Create an internal root CA, or an intermediate CA signed by another CA of the project. The private key is generated here, " +
      "sealed under the project's certificate data key and never returned.",
    audience: "principal",
    input: createCaInput,
    output: caOutput,
    use: certificateProject("certificate-authorities", "create"),
    async run(ctx, _actor, input, { project }) {
      const authorities = ctx.repo(authorityRepository);
      const parent = await parentCa(ctx, project, input.type, input.parentCaId);
      if (await authorities.byName(project.id, input.name)) {
        throw new BadRequestError(`A CA named '${input.name}' already exists in this project`);
      }
      const nowDate = ctx.clock.now();
      const spec = { commonName: input.commonName, keyAlgorithm: input.keyAlgorithm, ttlMs: input.ttlDays * DAY_MS, now: nowDate };
      const issued = parent ? await createIntermediateCa({ ...spec, parent: await issuerOf(ctx, project, parent) }) : await createRootCa(spec);
      const id = newId();
      const sealer = await certificateSealer(ctx, project);
      const now = nowDate.toISOString();
      const row: CaRow = {
        id,
        projectId: project.id,
        name: input.name,
        type: input.type,
        status: "active",
        commonName: input.commonName,
        keyAlgorithm: issued.keyAlgorithm,
        certificatePem: issued.certificatePem,
        certificateChain: parent ? parent.certificatePem + parent.certificateChain : "",
        serialNumber: issued.serialNumber,
        notBefore: issued.notBefore.toISOString(),
        notAfter: issued.notAfter.toISOString(),
        parentCaId: parent?.id ?? null,
        sealedPrivateKey: sealer.seal(issued.privateKeyPem!, caKeyBinding(id)),
        createdAt: now,
        updatedAt: now,
      };
      await authorities.insert(row);
      return { ca: toCaObject(row) };
    },
  }),

  list: defineOperation({
    name: "list",
    summary: "List the internal CAs of a project, oldest first",
    audience: "principal",
    input: listCasInput,
    output: caListOutput,
    use: certificateProject("certificate-authorities", "read"),
    async run(ctx, _actor, _input, { project }) {
      return { cas: (await ctx.repo(authorityRepository).list(project.id)).map(toCaObject) };
    },
  }),

  get: defineOperation({
    name: "get",
    summary: "Get an internal CA (its certificate and chain; never its private key)",
    audience: "principal",
    input: caRefInput,
    output: caOutput,
    use: authority("read"),
    async run(_ctx, _actor, _input, { record }) {
      return { ca: toCaObject(record) };
    },
  }),
};
