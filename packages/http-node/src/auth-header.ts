import { UnauthorizedError } from "@strongroom/core";

/** One run of visible ASCII after the scheme; the token's own format is core's business. */
const BEARER = /^Bearer +([\x21-\x7E]+) *$/i;

/** The bearer token of an `Authorization` header; undefined when there is no header at all. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const token = BEARER.exec(header)?.[1];
  if (!token) throw new UnauthorizedError("Authorization header must be 'Bearer <token>'");
  return token;
}
