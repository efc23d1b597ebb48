/**
 * How an agent's request body ends, read from the headers as received (Node's `rawHeaders`, so
 * repeats are seen). The proxy forwards a body only with framing it states itself: an upstream
 * that guessed differently from the proxy where a body ends would read the rest as another
 * request, with any Host, on a connection that then carries other requests (RFC 9112 §6.3, §11.2).
 * Anything that two readers could frame differently is refused rather than repaired.
 */
export type RequestFraming =
  | { readonly kind: "none" }
  | { readonly kind: "length"; readonly length: number }
  | { readonly kind: "chunked" }
  | { readonly kind: "refused"; readonly message: string };

const DIGITS = /^\d{1,15}$/;

export function requestFraming(rawHeaders: readonly string[]): RequestFraming {
  const lengths: string[] = [];
  const codings: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (name === "content-length") lengths.push(rawHeaders[i + 1]!.trim());
    else if (name === "transfer-encoding") codings.push(...rawHeaders[i + 1]!.split(",").map((coding) => coding.trim().toLowerCase()));
  }
  if (lengths.length > 0 && codings.length > 0) return refused("Content-Length and Transfer-Encoding together");
  if (codings.length > 0) {
    // Only plain chunked: any other coding would have to be undone or passed on, and either can disagree with the upstream.
    if (codings.length === 1 && codings[0] === "chunked") return { kind: "chunked" };
    return refused(`Transfer-Encoding "${codings.join(", ")}" (only "chunked" is accepted)`);
  }
  if (lengths.length > 1) return refused("more than one Content-Length");
  if (lengths.length === 1) {
    if (!DIGITS.test(lengths[0]!)) return refused("a Content-Length that is not a plain number");
    const length = Number(lengths[0]);
    return length === 0 ? { kind: "none" } : { kind: "length", length };
  }
  return { kind: "none" };
}

function refused(what: string): RequestFraming {
  return { kind: "refused", message: `The request's body framing is ambiguous: ${what}` };
}

/**
 * The framing headers the upstream gets: exactly one of Content-Length or chunked, whatever the
 * agent's other headers (including its `Connection`) said. Returns a new header record.
 */
export function frameHeaders<H extends Record<string, string | string[]>>(headers: H, framing: Exclude<RequestFraming, { kind: "refused" }>): Record<string, string | string[]> {
  const framed: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower !== "content-length" && lower !== "transfer-encoding") framed[name] = value;
  }
  if (framing.kind === "length") framed["content-length"] = String(framing.length);
  else if (framing.kind === "chunked") framed["transfer-encoding"] = "chunked";
  return framed;
}

/** A body whose length is known (the buffered one, after substitution). */
export const lengthFraming = (length: number): Exclude<RequestFraming, { kind: "refused" }> => (length === 0 ? { kind: "none" } : { kind: "length", length });
