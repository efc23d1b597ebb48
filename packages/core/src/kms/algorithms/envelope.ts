/**
 * The ciphertext a KMS key answers with: `format (1) | key version (4, big-endian) | IV (12) |
 * AES-GCM ciphertext | tag (16)`, base64 on the wire. Carrying the version lets ciphertexts made
 * before a rotation keep decrypting; the header is authenticated with the key id, so a
 * ciphertext moved to another key or another version does not open.
 */
export const ENVELOPE_FORMAT = 1;
const HEADER_BYTES = 5;
export const IV_BYTES = 12;
export const TAG_BYTES = 16;
/** What encryption adds to a plaintext. */
export const ENVELOPE_OVERHEAD = HEADER_BYTES + IV_BYTES + TAG_BYTES;

export interface Envelope {
  readonly version: number;
  readonly iv: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

export function envelopeHeader(version: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(ENVELOPE_FORMAT, 0);
  header.writeUInt32BE(version, 1);
  return header;
}

export function packEnvelope(envelope: Envelope): Buffer {
  return Buffer.concat([envelopeHeader(envelope.version), envelope.iv, envelope.ciphertext, envelope.tag]);
}

/** The envelope's parts, or undefined when the bytes are not one (too short, unknown format, version 0). */
export function unpackEnvelope(bytes: Buffer): Envelope | undefined {
  if (bytes.length < ENVELOPE_OVERHEAD || bytes.readUInt8(0) !== ENVELOPE_FORMAT) return undefined;
  const version = bytes.readUInt32BE(1);
  if (version === 0) return undefined;
  const ivEnd = HEADER_BYTES + IV_BYTES;
  return {
    version,
    iv: bytes.subarray(HEADER_BYTES, ivEnd),
    ciphertext: bytes.subarray(ivEnd, bytes.length - TAG_BYTES),
    tag: bytes.subarray(bytes.length - TAG_BYTES),
  };
}

/** Additional data of a key's ciphertext: the header and the key id. */
export const envelopeAad = (keyId: string, version: number): Buffer => Buffer.concat([envelopeHeader(version), Buffer.from(keyId)]);
