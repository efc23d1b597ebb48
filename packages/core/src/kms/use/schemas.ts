import { z } from "zod";
import { uuid } from "../../kernel/schemas.js";
import { MAC_ALGORITHMS, SIGNING_ALGORITHMS } from "../algorithms/catalogue.js";
import { ENVELOPE_OVERHEAD } from "../algorithms/envelope.js";
import { keyId } from "../keys/schemas.js";
import { base64Bytes, isBase64 } from "./base64.js";

/** As Infisical: at most 4 KiB of data per call (plaintext, data to sign or MAC). */
export const MAX_DATA_BYTES = 4096;
/** RSA-4096 signatures are 512 bytes, DER ECDSA P-384 at most 104; MACs at most 64. */
const MAX_SIGNATURE_BYTES = 1024;

const base64Field = (field: string, maxBytes: number) =>
  z
    .string()
    .max(4 * Math.ceil(maxBytes / 3), `${field} cannot exceed ${maxBytes} bytes`)
    .refine(isBase64, `${field} must be base64 encoded`)
    .refine((text) => base64Bytes(text) <= maxBytes, `${field} cannot exceed ${maxBytes} bytes`)
    .describe(`base64, at most ${maxBytes} bytes`);

const data = base64Field("data", MAX_DATA_BYTES);
const signingAlgorithm = z.enum(SIGNING_ALGORITHMS);
const isDigest = z.boolean().default(false).describe("`data` is already a digest of the hash the signing algorithm names");

export const encryptInput = z.object({ keyId, plaintext: base64Field("plaintext", MAX_DATA_BYTES) });
export const encryptOutput = z.object({ ciphertext: z.string() });

export const decryptInput = z.object({ keyId, ciphertext: base64Field("ciphertext", MAX_DATA_BYTES + ENVELOPE_OVERHEAD) });
export const decryptOutput = z.object({ plaintext: z.string() });

export const signInput = z.object({ keyId, data, signingAlgorithm, isDigest });
export const signOutput = z.object({ signature: z.string(), keyId: uuid, signingAlgorithm });

export const verifyInput = z.object({ keyId, data, signature: base64Field("signature", MAX_SIGNATURE_BYTES), signingAlgorithm, isDigest });
export const verifyOutput = z.object({ signatureValid: z.boolean(), keyId: uuid, signingAlgorithm });

export const keyOnlyInput = z.object({ keyId });
export const publicKeyOutput = z.object({ publicKey: z.string().describe("PEM (SubjectPublicKeyInfo) of the primary version") });
export const signingAlgorithmsOutput = z.object({ signingAlgorithms: z.array(signingAlgorithm) });

const macAlgorithm = z.enum(MAC_ALGORITHMS);
export const generateMacInput = z.object({ keyId, data });
export const generateMacOutput = z.object({ mac: z.string(), keyId: uuid, macAlgorithm });
export const verifyMacInput = z.object({ keyId, data, mac: base64Field("mac", MAX_SIGNATURE_BYTES) });
export const verifyMacOutput = z.object({ macValid: z.boolean(), keyId: uuid, macAlgorithm });
