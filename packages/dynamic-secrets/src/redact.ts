/**
 * What a driver says can quote the statement it choked on (MySQL's syntax errors do), and with it
 * a password. Every message a provider passes on goes through here first.
 */
export function redact(message: string, secrets: readonly (string | undefined)[]): string {
  let text = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) text = text.split(secret).join("[redacted]");
  }
  return text;
}

/** An Error whose message has `secrets` removed, prefixed with what was being done. */
export function providerFailure(doing: string, error: unknown, secrets: readonly (string | undefined)[]): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`${doing}: ${redact(message, secrets) || "unknown error"}`);
}
