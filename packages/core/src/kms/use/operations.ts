import type { Context } from "../../kernel/context.js";
import { BadRequestError } from "../../kernel/errors.js";
import { defineOperation } from "../../kernel/operation.js";
import { decryptWith, encryptWith, versionOf } from "../algorithms/aes.js";
import { digestLengthOf, signingAlgorithmsOf, signingMismatch, type KeyAlgorithm, type MacAlgorithm, type SigningAlgorithm } from "../algorithms/catalogue.js";
import { generateMac, macMatches } from "../algorithms/mac.js";
import type { UsableKey } from "../algorithms/material.js";
import { signData, verifyData } from "../algorithms/signing.js";
import { cmekRepository } from "../keys/repository.js";
import { refuseDisabled, refuseOtherUsage } from "../keys/refusals.js";
import { keyScope } from "../scope.js";
import type { CmekKeyRow } from "../tables.js";
import { anyVersion, usableVersion } from "./key-material.js";
import {
  decryptInput,
  decryptOutput,
  encryptInput,
  encryptOutput,
  generateMacInput,
  generateMacOutput,
  keyOnlyInput,
  publicKeyOutput,
  signInput,
  signingAlgorithmsOutput,
  signOutput,
  verifyInput,
  verifyMacInput,
  verifyMacOutput,
  verifyOutput,
} from "./schemas.js";

// One answer for every ciphertext that does not open (altered, truncated, another key's, an
// unknown version): which of these it was is nothing a caller needs, nor should learn.
const undecryptable = () => new BadRequestError("The ciphertext could not be decrypted with this key");

const fromBase64 = (text: string) => Buffer.from(text, "base64");

async function primaryOf(ctx: Context, key: CmekKeyRow): Promise<UsableKey> {
  const usable = await usableVersion(ctx, key, key.version);
  if (!usable) throw new Error(`KMS key ${key.id} has no material for its version ${key.version}`);
  return usable;
}

/** The key may sign or verify with `algorithm` over this data; otherwise 400 saying why. */
function checkSigning(key: CmekKeyRow, algorithm: SigningAlgorithm, data: Buffer, isDigest: boolean): void {
  refuseDisabled(key);
  refuseOtherUsage(key, "sign-verify");
  const mismatch = signingMismatch(key.algorithm as KeyAlgorithm, algorithm, isDigest);
  if (mismatch) throw new BadRequestError(mismatch);
  if (isDigest && data.length !== digestLengthOf(algorithm)) {
    throw new BadRequestError(`${algorithm} takes a ${digestLengthOf(algorithm)}-byte digest; got ${data.length} bytes`);
  }
}

function asymmetric(usable: UsableKey) {
  if (usable.kind !== "asymmetric") throw new Error("a sign-verify key holds a key pair");
  return usable;
}

function secretBytes(usable: UsableKey) {
  if (usable.kind === "asymmetric") throw new Error("a symmetric key holds raw bytes");
  return usable;
}

export const useOperations = {
  encrypt: defineOperation({
    name: "encrypt",
    summary: "Encrypt up to 4 KiB (base64) with an encrypt-decrypt key; the ciphertext names the key version that made it",
    audience: "principal",
    input: encryptInput,
    output: encryptOutput,
    use: keyScope("encrypt"),
    async run(ctx, _actor, input, { record }) {
      refuseDisabled(record);
      refuseOtherUsage(record, "encrypt-decrypt");
      const { key } = secretBytes(await primaryOf(ctx, record));
      return { ciphertext: encryptWith(key, record.id, record.version, fromBase64(input.plaintext)).toString("base64") };
    },
  }),

  decrypt: defineOperation({
    name: "decrypt",
    summary: "Decrypt a ciphertext this key made, with whichever of its versions made it",
    audience: "principal",
    input: decryptInput,
    output: decryptOutput,
    use: keyScope("decrypt"),
    async run(ctx, _actor, input, { record }) {
      refuseDisabled(record);
      refuseOtherUsage(record, "encrypt-decrypt");
      const ciphertext = fromBase64(input.ciphertext);
      const version = versionOf(ciphertext);
      if (version === undefined || version > record.version) throw undecryptable();
      const usable = await usableVersion(ctx, record, version);
      const plaintext = usable && decryptWith(secretBytes(usable).key, record.id, ciphertext);
      if (!plaintext) throw undecryptable();
      return { plaintext: plaintext.toString("base64") };
    },
  }),

  sign: defineOperation({
    name: "sign",
    summary: "Sign data (or, with isDigest, a digest) with a sign-verify key's primary version",
    audience: "principal",
    input: signInput,
    output: signOutput,
    use: keyScope("sign"),
    async run(ctx, _actor, input, { record }) {
      const data = fromBase64(input.data);
      checkSigning(record, input.signingAlgorithm, data, input.isDigest);
      const { privateKey } = asymmetric(await primaryOf(ctx, record));
      const signature = signData(input.signingAlgorithm, privateKey, data, input.isDigest);
      return { signature: signature.toString("base64"), keyId: record.id, signingAlgorithm: input.signingAlgorithm };
    },
  }),

  verify: defineOperation({
    name: "verify",
    summary: "Verify a signature made by any version of a sign-verify key",
    audience: "principal",
    input: verifyInput,
    output: verifyOutput,
    use: keyScope("verify"),
    async run(ctx, _actor, input, { record }) {
      const data = fromBase64(input.data);
      checkSigning(record, input.signingAlgorithm, data, input.isDigest);
      const signature = fromBase64(input.signature);
      const signatureValid = await anyVersion(ctx, record, (usable) =>
        verifyData(input.signingAlgorithm, asymmetric(usable).publicKey, data, signature, input.isDigest),
      );
      return { signatureValid, keyId: record.id, signingAlgorithm: input.signingAlgorithm };
    },
  }),

  publicKey: defineOperation({
    name: "publicKey",
    summary: "The public key (PEM) of a sign-verify key's primary version",
    audience: "principal",
    input: keyOnlyInput,
    output: publicKeyOutput,
    use: keyScope("read"),
    async run(ctx, _actor, _input, { record }) {
      refuseDisabled(record);
      refuseOtherUsage(record, "sign-verify");
      const primary = await ctx.repo(cmekRepository).version(record.id, record.version);
      if (!primary?.publicKeyPem) throw new Error(`KMS key ${record.id} has no public key for its version ${record.version}`);
      return { publicKey: primary.publicKeyPem };
    },
  }),

  signingAlgorithms: defineOperation({
    name: "signingAlgorithms",
    summary: "The signing algorithms a sign-verify key supports",
    audience: "principal",
    input: keyOnlyInput,
    output: signingAlgorithmsOutput,
    use: keyScope("read"),
    async run(_ctx, _actor, _input, { record }) {
      refuseDisabled(record);
      refuseOtherUsage(record, "sign-verify");
      return { signingAlgorithms: signingAlgorithmsOf(record.algorithm as KeyAlgorithm) };
    },
  }),

  generateMac: defineOperation({
    name: "generateMac",
    summary: "HMAC of up to 4 KiB of data with a generate-verify-mac key's primary version",
    audience: "principal",
    input: generateMacInput,
    output: generateMacOutput,
    use: keyScope("sign"),
    async run(ctx, _actor, input, { record }) {
      refuseDisabled(record);
      refuseOtherUsage(record, "generate-verify-mac");
      const { hash, key } = hmacOf(await primaryOf(ctx, record));
      return { mac: generateMac(hash, key, fromBase64(input.data)).toString("base64"), keyId: record.id, macAlgorithm: record.algorithm as MacAlgorithm };
    },
  }),

  verifyMac: defineOperation({
    name: "verifyMac",
    summary: "Verify, in constant time, a MAC made by any version of a generate-verify-mac key",
    audience: "principal",
    input: verifyMacInput,
    output: verifyMacOutput,
    use: keyScope("verify"),
    async run(ctx, _actor, input, { record }) {
      refuseDisabled(record);
      refuseOtherUsage(record, "generate-verify-mac");
      const data = fromBase64(input.data);
      const mac = fromBase64(input.mac);
      const macValid = await anyVersion(ctx, record, (usable) => {
        const { hash, key } = hmacOf(usable);
        return macMatches(hash, key, data, mac);
      });
      return { macValid, keyId: record.id, macAlgorithm: record.algorithm as MacAlgorithm };
    },
  }),
};

function hmacOf(usable: UsableKey) {
  if (usable.kind !== "hmac") throw new Error("a generate-verify-mac key holds an HMAC key");
  return usable;
}
