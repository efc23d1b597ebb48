/** The names the API uses for X.509 usages and name types, with their wire values. */

/** In KeyUsage bit order (RFC 5280 §4.2.1.3): the index is the bit number. */
export const KEY_USAGES = [
  "digital_signature",
  "non_repudiation",
  "key_encipherment",
  "data_encipherment",
  "key_agreement",
  "key_cert_sign",
  "crl_sign",
  "encipher_only",
  "decipher_only",
] as const;
export type KeyUsage = (typeof KEY_USAGES)[number];

export const EXTENDED_KEY_USAGE_OIDS = {
  server_auth: "1.3.6.1.5.5.7.3.1",
  client_auth: "1.3.6.1.5.5.7.3.2",
  code_signing: "1.3.6.1.5.5.7.3.3",
  email_protection: "1.3.6.1.5.5.7.3.4",
  time_stamping: "1.3.6.1.5.5.7.3.8",
  ocsp_signing: "1.3.6.1.5.5.7.3.9",
} as const;
export type ExtendedKeyUsage = keyof typeof EXTENDED_KEY_USAGE_OIDS;
export const EXTENDED_KEY_USAGES = Object.keys(EXTENDED_KEY_USAGE_OIDS) as [ExtendedKeyUsage, ...ExtendedKeyUsage[]];

/** SAN type → GeneralName context tag (RFC 5280 §4.2.1.6). */
export const SAN_TAGS = { email: 1, dns_name: 2, uri: 6, ip_address: 7 } as const;
export type SanType = keyof typeof SAN_TAGS;
export const SAN_TYPES = Object.keys(SAN_TAGS) as [SanType, ...SanType[]];

export interface SubjectAltName {
  type: SanType;
  value: string;
}

/** Extensions Strongroom writes itself; a custom extension may not claim these OIDs. */
export const MANAGED_EXTENSION_OIDS = {
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
} as const;
