/** PEM armour and the certificate fingerprint format of DESIGN.md §7. */
import { hash } from "node:crypto";
import { BadRequestError } from "../kernel/errors.js";

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\s]*?)-----END \1-----/g;

/** Every PEM block in `text`, in order, with its label. */
export function pemBlocks(text: string): { label: string; der: Buffer }[] {
  return Array.from(text.matchAll(PEM_BLOCK), (m) => ({ label: m[1]!, der: Buffer.from(m[2]!.replace(/\s+/g, ""), "base64") }));
}

/** The DER of the first block carrying one of `labels`; a 400 naming `what` when there is none. */
export function pemToDer(text: string, labels: string[], what: string): Buffer {
  const block = pemBlocks(text).find((b) => labels.includes(b.label));
  if (!block || block.der.length === 0) throw new BadRequestError(`${what} is not a PEM ${labels[0]}`);
  return block.der;
}

export function derToPem(der: Uint8Array, label: string): string {
  const base64 = Buffer.from(der.buffer, der.byteOffset, der.byteLength).toString("base64");
  const lines: string[] = [];
  for (let at = 0; at < base64.length; at += 64) lines.push(base64.slice(at, at + 64));
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

export const certificateDer = (pem: string, what = "certificate"): Buffer => pemToDer(pem, ["CERTIFICATE"], what);

const HEX_PAIRS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).toUpperCase().padStart(2, "0"));

/** `SHA256:` + upper-case hex pairs joined by `:`, over the DER; a PEM string is unwrapped first. */
export function certificateFingerprint(pemOrDer: string | Uint8Array): string {
  const bytes = typeof pemOrDer === "string" ? certificateDer(pemOrDer) : pemOrDer;
  const digest = hash("sha256", bytes, "buffer");
  const pairs = new Array<string>(digest.length);
  for (let i = 0; i < digest.length; i++) pairs[i] = HEX_PAIRS[digest[i]!]!;
  return `SHA256:${pairs.join(":")}`;
}
