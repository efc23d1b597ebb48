/**
 * A custom extension's `value` is a string, and it means one of two things:
 *
 * - `DER:` followed by hex (`DER:0c0568656c6c6f`): the exact DER bytes of the extension value,
 *   for structured extensions. The hex must decode to exactly one well-formed DER element.
 * - anything else: text, written as a DER UTF8String.
 *
 * The prefix (openssl's own config syntax) keeps the two unambiguous: `cafe` is always the
 * four-letter word, never two bytes.
 */
import { decode } from "./der-reader.js";
import { der, toDer } from "./der-writer.js";

const DER_PREFIX = "DER:";

export function customExtensionValueDer(value: string): Buffer {
  if (!value.startsWith(DER_PREFIX)) return toDer(der.utf8String(value));
  const hex = value.slice(DER_PREFIX.length);
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) throw new Error("DER: must be followed by an even number of hex digits");
  const bytes = Buffer.from(hex, "hex");
  decode(bytes);
  return bytes;
}

/** Why the value cannot be encoded, or null when it can. */
export function customExtensionValueProblem(value: string): string | null {
  try {
    customExtensionValueDer(value);
    return null;
  } catch (error) {
    return `invalid extension value: ${(error as Error).message}`;
  }
}
