/** X.501 Names: building a subject from attributes, and reading one back as text. */
import { type Asn1, children, readOid, readString } from "./der-reader.js";
import { type DerNode, der } from "./der-writer.js";
import type { SubjectAttributes } from "./resolved-issuance.js";

const ATTRIBUTE_OIDS = {
  commonName: "2.5.4.3",
  country: "2.5.4.6",
  locality: "2.5.4.7",
  state: "2.5.4.8",
  organization: "2.5.4.10",
  organizationalUnit: "2.5.4.11",
} as const;
const DOMAIN_COMPONENT_OID = "0.9.2342.19200300.100.1.25";

const SHORT_NAMES: Record<string, string> = {
  [ATTRIBUTE_OIDS.commonName]: "CN",
  [ATTRIBUTE_OIDS.country]: "C",
  [ATTRIBUTE_OIDS.locality]: "L",
  [ATTRIBUTE_OIDS.state]: "ST",
  [ATTRIBUTE_OIDS.organization]: "O",
  [ATTRIBUTE_OIDS.organizationalUnit]: "OU",
  [DOMAIN_COMPONENT_OID]: "DC",
  "2.5.4.5": "serialNumber",
  "1.2.840.113549.1.9.1": "emailAddress",
};

// Most significant first, the order X.500 and openssl print: DC, C, ST, L, O, OU, CN.
const SUBJECT_ORDER = ["country", "state", "locality", "organization", "organizationalUnit", "commonName"] as const;

const rdn = (oid: string, value: DerNode): DerNode => der.set([der.sequence([der.oid(oid), value])]);

/**
 * Domain components arrive in hostname order (`["example", "com"]`) and are written top-level
 * first (DC=com, DC=example), as RFC 4519 directory names are. Country is an upper-case PrintableString,
 * DC an IA5String (both mandated); the rest UTF8String (RFC 5280 §4.1.2.4).
 */
export function buildName(subject: SubjectAttributes, domainComponents: string[] = []): DerNode {
  const rdns = [...domainComponents].reverse().map((dc) => rdn(DOMAIN_COMPONENT_OID, der.ia5String(dc)));
  for (const field of SUBJECT_ORDER) {
    const value = subject[field];
    if (value === undefined || value === "") continue;
    rdns.push(rdn(ATTRIBUTE_OIDS[field], field === "country" ? der.printableString(value.toUpperCase()) : der.utf8String(value)));
  }
  return der.sequence(rdns);
}

export interface NameAttribute {
  oid: string;
  value: string;
}

export function readName(name: Asn1): NameAttribute[] {
  return children(name, "Name").flatMap((set) =>
    children(set, "RDN").map((pair) => {
      const [oid, value] = children(pair, "AttributeTypeAndValue");
      return { oid: readOid(oid), value: readString(value!) };
    }),
  );
}

const FIELD_BY_OID = new Map<string, keyof SubjectAttributes>(Object.entries(ATTRIBUTE_OIDS).map(([field, oid]) => [oid, field as keyof SubjectAttributes]));

/**
 * A read name as issuance takes it back (`buildName`'s inverse for what it writes): the subject
 * fields, the most specific value of each winning, and the domain components in hostname order.
 */
export function subjectAttributesOf(attributes: NameAttribute[]): { subject: SubjectAttributes; domainComponents: string[] } {
  const subject: SubjectAttributes = {};
  const domainComponents: string[] = [];
  for (const { oid, value } of attributes) {
    const field = FIELD_BY_OID.get(oid);
    if (field) subject[field] = value;
    else if (oid === DOMAIN_COMPONENT_OID) domainComponents.unshift(value);
  }
  return { subject, domainComponents };
}

/** The most specific CN, which is the one clients look at. */
export function commonNameOf(attributes: NameAttribute[]): string | null {
  return attributes.findLast((a) => a.oid === ATTRIBUTE_OIDS.commonName)?.value ?? null;
}

const escapeValue = (value: string): string =>
  value.replace(/([,+"\\<>;=])/g, "\\$1").replace(/^([ #])/, "\\$1").replace(/ $/, "\\ ");

/** RFC 4514 text: most specific attribute first (`CN=leaf,O=Acme,DC=example,DC=com`). */
export function formatName(attributes: NameAttribute[]): string {
  return [...attributes]
    .reverse()
    .map((a) => `${SHORT_NAMES[a.oid] ?? a.oid}=${escapeValue(a.value)}`)
    .join(",");
}
