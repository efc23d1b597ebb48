/** PKCS #10 certificate signing requests: verified, then reduced to the subject and the public key. */
import { type KeyObject, createPublicKey, verify } from "node:crypto";
import { BadRequestError } from "../kernel/errors.js";
import {
  type KeyAlgorithm,
  SIGNATURE_ALGORITHM_SPECS,
  keyAlgorithmOf,
  keyFamily,
  signatureAlgorithmByOid,
} from "./algorithms.js";
import { children, decode, encode, readBitString, readOid } from "./der-reader.js";
import { pemToDer } from "./pem.js";

export interface CertificateRequest {
  /** Encoded Name and SubjectPublicKeyInfo, as they will appear in the certificate. */
  subjectName: Buffer;
  subjectPublicKeyInfo: Buffer;
  /** The subjectPublicKey bits, for the key identifier. */
  publicKeyBits: Buffer;
  publicKey: KeyObject;
  keyAlgorithm: KeyAlgorithm;
}

function readStructure(der: Buffer) {
  try {
    const [info, algorithm, signature] = children(decode(der), "CertificationRequest");
    const [, subjectName, spki] = children(info, "CertificationRequestInfo");
    if (!subjectName || !spki || !signature) throw new Error("missing fields");
    const [, publicKeyBits] = children(spki, "SubjectPublicKeyInfo");
    return {
      info: encode(info!),
      signatureOid: readOid(children(algorithm)[0]),
      signature: readBitString(signature),
      subjectName: encode(subjectName),
      spki: encode(spki),
      publicKeyBits: readBitString(publicKeyBits),
    };
  } catch (error) {
    throw new BadRequestError(`The CSR cannot be read: ${(error as Error).message}`);
  }
}

/**
 * A CSR is proof of possession: its self-signature must verify with the key it carries. Only the
 * key algorithms Strongroom issues for are accepted. Requested extensions (e.g. SANs inside the
 * CSR) are ignored: the profile and request attributes decide what a certificate carries.
 */
export function parseCsr(pem: string): CertificateRequest {
  const der = pemToDer(pem, ["CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST"], "csr");
  const csr = readStructure(der);
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: csr.spki, format: "der", type: "spki" });
  } catch {
    throw new BadRequestError("The CSR's public key cannot be read");
  }
  const keyAlgorithm = keyAlgorithmOf(publicKey);
  if (!keyAlgorithm) throw new BadRequestError("The CSR's key must be RSA 2048/3072/4096 or EC P-256/P-384");
  const signatureAlgorithm = signatureAlgorithmByOid(csr.signatureOid);
  if (!signatureAlgorithm || SIGNATURE_ALGORITHM_SPECS[signatureAlgorithm].family !== keyFamily(keyAlgorithm)) {
    throw new BadRequestError(`The CSR's signature algorithm (${csr.signatureOid}) is not supported for its key`);
  }
  const hash = SIGNATURE_ALGORITHM_SPECS[signatureAlgorithm].hash;
  if (!verify(hash, csr.info, publicKey, csr.signature)) throw new BadRequestError("The CSR's signature does not verify");
  return { subjectName: csr.subjectName, subjectPublicKeyInfo: csr.spki, publicKeyBits: csr.publicKeyBits, publicKey, keyAlgorithm };
}
