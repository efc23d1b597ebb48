/** Syntax checks for the names a certificate or a discovery job may carry. */

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;

/**
 * A DNS host name: ASCII labels (use punycode for IDNs), 253 characters at most, and a last
 * label that is not all digits so `10.0.0.1` can never pass as a name. `wildcard` admits a
 * leading `*.` label, as certificate SANs may carry.
 */
export function isHostname(value: string, options: { wildcard?: boolean } = {}): boolean {
  const name = options.wildcard && value.startsWith("*.") ? value.slice(2) : value;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split(".");
  return labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels[labels.length - 1]!);
}

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** An RFC 822 mailbox as a certificate carries it: ASCII, one `@`, a host name after it. */
export function isEmailAddress(value: string): boolean {
  const at = value.lastIndexOf("@");
  return at > 0 && value.length <= 254 && PRINTABLE_ASCII.test(value) && !value.slice(0, at).includes("@") && isHostname(value.slice(at + 1));
}

/** An absolute URI with a scheme; IA5String forbids anything outside ASCII. */
export function isUri(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(value) && PRINTABLE_ASCII.test(value) && URL.canParse(value);
}

/** Dotted object identifier with the X.660 limits on the first two arcs. */
export function isOid(value: string): boolean {
  const match = /^([0-2])\.(0|[1-9]\d{0,8})((?:\.(?:0|[1-9]\d{0,14}))*)$/.exec(value);
  if (!match) return false;
  return match[1] === "2" || Number(match[2]) <= 39;
}
