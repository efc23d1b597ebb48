// Standard alphabet, padded or not, as Infisical's clients send it.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

export const isBase64 = (text: string): boolean => BASE64.test(text);

/** How many bytes well-formed base64 decodes to, without decoding it. */
export function base64Bytes(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const chars = text.length - padding;
  return Math.floor((chars * 3) / 4);
}
