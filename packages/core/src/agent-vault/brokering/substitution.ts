import type { SubstitutionSurface } from "./credentials.js";

/**
 * Placeholder replacement for `credential-substitution` credentials. Each surface has its own
 * encoding so that the secret arrives as the literal value and can never change the structure
 * around it (add a path segment, a query parameter, a JSON field or a header line).
 */
export type Encoder = (value: string) => string;

export interface Replacer {
  readonly isEmpty: boolean;
  readonly text: (input: string) => string;
  /** Byte-exact outside the placeholders, so binary or non-UTF-8 bodies survive. */
  readonly bytes: (input: Buffer) => Buffer;
}

const raw: Encoder = (value) => value;

/** A value that is a whole `.` or `..` segment would be read as a path step, so its dots are encoded too. */
export const encodePathSegment: Encoder = (value) =>
  /^\.{1,2}$/.test(value) ? value.replaceAll(".", "%2E") : encodeURIComponent(value);

/** The inside of a JSON string literal, without the surrounding quotes. */
export const encodeJsonStringContent: Encoder = (value) => JSON.stringify(value).slice(1, -1);

export function surfaceEncoder(surface: SubstitutionSurface, contentType: string | null): Encoder {
  switch (surface) {
    case "header":
      return raw;
    case "path":
      return encodePathSegment;
    case "query":
      return encodeURIComponent;
    case "body":
      return bodyEncoder(contentType);
  }
}

function bodyEncoder(contentType: string | null): Encoder {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType === "application/json" || mediaType.endsWith("+json")) return encodeJsonStringContent;
  if (mediaType === "application/x-www-form-urlencoded") return encodeURIComponent;
  return raw;
}

/**
 * Replaces every placeholder (key of `values`) with its encoded value in one pass, longest
 * placeholder first, so an inserted secret is never searched for further placeholders.
 */
export function placeholderReplacer(values: ReadonlyMap<string, string> | undefined, encode: Encoder): Replacer {
  if (values === undefined || values.size === 0) return { isEmpty: true, text: (input) => input, bytes: (input) => input };
  const placeholders = [...values.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(placeholders.map(escapeRegExp).join("|"), "g");
  const asText = new Map(placeholders.map((placeholder) => [placeholder, encode(values.get(placeholder)!)]));
  // Latin-1 maps bytes to code units one to one, which lets the same regular expression run over bytes.
  const asLatin1 = new Map([...asText].map(([placeholder, text]) => [placeholder, Buffer.from(text, "utf8").toString("latin1")]));
  return {
    isEmpty: false,
    text: (input) => input.replace(pattern, (found) => asText.get(found)!),
    bytes: (input) => {
      const latin1 = input.toString("latin1");
      const replaced = latin1.replace(pattern, (found) => asLatin1.get(found)!);
      return replaced === latin1 ? input : Buffer.from(replaced, "latin1");
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
