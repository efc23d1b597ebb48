import { describe, expect, it } from "vitest";
import { type IssuanceFacts, issuanceProblem } from "../../src/x509/issuance-rules.js";

const t = (iso: string) => new Date(iso);
const base: IssuanceFacts = {
  isCA: false,
  keyUsages: ["digital_signature"],
  hasSubject: true,
  subjectAltNameCount: 0,
  notBefore: t("2026-01-10T00:00:00Z"),
  notAfter: t("2026-02-10T00:00:00Z"),
  issuer: { notBefore: t("2026-01-01T00:00:00Z"), notAfter: t("2027-01-01T00:00:00Z") },
};

describe("issuanceProblem", () => {
  const table: [string, Partial<IssuanceFacts>, RegExp | null][] = [
    ["a plain leaf", {}, null],
    ["SANs without a subject", { hasSubject: false, subjectAltNameCount: 1 }, null],
    ["neither subject nor SANs", { hasSubject: false }, /needs a subject/],
    ["zero lifetime", { notAfter: t("2026-01-10T00:00:00Z") }, /at least one second/],
    ["an invalid end date", { notAfter: new Date(Number.NaN) }, /at least one second/],
    ["an end past 9999", { issuer: undefined, notAfter: t("+010000-01-01T00:00:00Z") }, /year 9999/],
    ["a CA without key_cert_sign", { isCA: true, keyUsages: ["digital_signature"] }, /needs the key_cert_sign/],
    ["a CA with no key usages listed (defaults apply)", { isCA: true, keyUsages: [] }, null],
    ["key_cert_sign on a leaf", { keyUsages: ["key_cert_sign"] }, /requires basicConstraints.isCA/],
    ["before the CA is valid", { notBefore: t("2025-12-31T00:00:00Z") }, /not valid until/],
    ["after the CA expired", { notBefore: t("2027-01-01T00:00:00Z"), notAfter: t("2027-02-01T00:00:00Z") }, /expired/],
    ["ending exactly with the CA", { notAfter: t("2027-01-01T00:00:00Z") }, null],
    ["outliving the CA by a second", { notAfter: t("2027-01-01T00:00:01Z") }, /outlive/],
    ["a CA under pathLength 0", { isCA: true, keyUsages: ["key_cert_sign"], issuer: { ...base.issuer!, pathLength: 0 } }, /pathLength is 0/],
    ["a CA with pathLength equal to its issuer's", { isCA: true, keyUsages: ["key_cert_sign"], pathLength: 1, issuer: { ...base.issuer!, pathLength: 1 } }, /less than/],
    ["a CA with a smaller pathLength", { isCA: true, keyUsages: ["key_cert_sign"], pathLength: 0, issuer: { ...base.issuer!, pathLength: 1 } }, null],
    ["a leaf under pathLength 0", { issuer: { ...base.issuer!, pathLength: 0 } }, null],
    ["self-signed: no issuer limits", { issuer: undefined, notAfter: t("2099-01-01T00:00:00Z") }, null],
  ];
  it.each(table)("%s", (_, change, expected) => {
    const facts = { ...base, ...change };
    if (change.issuer === undefined && "issuer" in change) delete facts.issuer;
    const problem = issuanceProblem(facts);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toMatch(expected);
  });
});
