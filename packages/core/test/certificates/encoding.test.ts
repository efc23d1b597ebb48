import { generateKeyPairSync } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { randomSerial } from "../../src/x509/certificate-builder.js";
import { customExtensionValueDer } from "../../src/x509/custom-extension-value.js";
import { children, contents, decode, encode, readOid, readSmallInteger, readTime } from "../../src/x509/der-reader.js";
import { der, derLength, tlv, toDer } from "../../src/x509/der-writer.js";
import { keyUsageExtension, namedBits, readKeyUsages } from "../../src/x509/extensions.js";
import { KEY_USAGES, certificateFingerprint, derToPem, pemBlocks } from "../../src/entries/x509.js";
import { unsignedInteger } from "../../src/x509/key-encoding.js";

const hex = (b: Buffer) => b.toString("hex");

describe("namedBits (DER-minimal BIT STRING)", () => {
  const table: [number[], string, number][] = [
    [[], "", 0],
    [[0], "80", 7],
    [[0, 2], "a0", 5],
    [[5, 6], "06", 1],
    [[7], "01", 0],
    [[8], "0080", 7],
    [[0, 8], "8080", 7],
  ];
  it.each(table)("bits %j → %s with %d unused", (bits, bytes, unused) => {
    expect(namedBits(bits)).toEqual({ bytes: Buffer.from(bytes, "hex"), unusedBits: unused });
  });

  it("property: key usages survive encoding and decoding", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom(...KEY_USAGES)), (usages) => {
        const [, , value] = children(decode(keyUsageExtension(usages)));
        const decoded = readKeyUsages(contents(value));
        expect(decoded).toEqual(KEY_USAGES.filter((u) => usages.includes(u)));
      }),
    );
  });
});

describe("unsignedInteger", () => {
  it.each([
    ["00", "00"],
    ["0000", "00"],
    ["7f", "7f"],
    ["80", "0080"],
    ["000080", "0080"],
    ["010001", "010001"],
  ])("%s → %s", (input, output) => {
    expect(hex(unsignedInteger(Buffer.from(input, "hex")))).toBe(output);
  });
});

describe("randomSerial", () => {
  it("is 16 bytes, positive, and DER-minimal", () => {
    for (let i = 0; i < 2000; i++) {
      const serial = randomSerial();
      expect(serial.length).toBe(16);
      expect(serial[0]).toBeGreaterThan(0);
      expect(serial[0]).toBeLessThan(0x80);
    }
  });
});

describe("custom extension values", () => {
  it.each([
    ["hello", "0c0568656c6c6f"],
    ["", "0c00"],
    ["cafe", "0c0463616665"],
    ["DER:020105", "020105"],
    ["DER:0500", "0500"],
  ])("%s → %s", (value, der) => {
    expect(hex(customExtensionValueDer(value))).toBe(der);
  });
});

describe("the DER writer, read back by forge's parser", () => {
  it.each([
    [0, "020100"],
    [1, "020101"],
    [127, "02017f"],
    [128, "02020080"],
    [256, "02020100"],
    [65537, "0203010001"],
  ])("smallInteger %d → %s", (value, hex) => {
    expect(toDer(der.smallInteger(value)).toString("hex")).toBe(hex);
    expect(readSmallInteger(decode(toDer(der.smallInteger(value))))).toBe(value);
  });

  it.each([
    ["2.5.29.17", "0603551d11"],
    ["1.2.840.113549.1.1.11", "06092a864886f70d01010b"],
    ["1.2.840.10045.3.1.7", "06082a8648ce3d030107"],
    ["2.999.3", "0603883703"],
  ])("oid %s → %s", (oid, hex) => {
    expect(der.oid(oid).toString("hex")).toBe(hex);
    expect(readOid(decode(der.oid(oid)))).toBe(oid);
  });

  it.each([
    ["2026-03-01T12:00:05Z", "170d3236303330313132303030355a"],
    ["2049-12-31T23:59:59Z", "170d3439313233313233353935395a"],
    ["2050-01-01T00:00:00Z", "180f32303530303130313030303030305a"],
  ])("time %s → %s", (iso, hex) => {
    expect(toDer(der.time(new Date(iso))).toString("hex")).toBe(hex);
    expect(readTime(decode(toDer(der.time(new Date(iso))))).toISOString()).toBe(new Date(iso).toISOString());
  });

  it("property: contents of any length survive, short and long length forms alike", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 70_000 }), (bytes) => {
        const node = der.octetString(bytes);
        const encoded = toDer(node);
        expect(derLength(node)).toBe(encoded.length);
        expect(contents(decode(encoded))).toEqual(Buffer.from(bytes));
        expect(encode(decode(encoded))).toEqual(encoded);
      }),
      { numRuns: 60 },
    );
  });

  it("nests: a SEQUENCE of a SET, a BOOLEAN, a NULL and an explicit tag", () => {
    const encoded = toDer(der.sequence([der.set([der.utf8String("é")]), der.boolean(true), der.null(), der.explicit(3, der.ia5String("x"))]));
    expect(encoded.toString("hex")).toBe("3010" + "3104" + "0c02c3a9" + "0101ff" + "0500" + "a303" + "160178");
    expect(encode(decode(encoded))).toEqual(encoded);
    expect(toDer(tlv(0x04, [])).toString("hex")).toBe("0400");
  });

  it("nests an encoded element inside a primitive, as OCTET STRING extension values are", () => {
    const inner = der.sequence([der.boolean(true)]);
    expect(toDer(der.octetString(inner)).toString("hex")).toBe("0405" + "30030101ff");
    expect(toDer(der.bitString(Buffer.from("a0", "hex"), 5)).toString("hex")).toBe("030205a0");
  });
});

describe("DER and PEM round trips", () => {
  it("decode ∘ encode is the identity on a real key's DER", () => {
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const spki = publicKey.export({ type: "spki", format: "der" });
    expect(encode(decode(spki))).toEqual(spki);
  });

  it("rejects trailing bytes", () => {
    expect(() => decode(Buffer.from("050000", "hex"))).toThrow();
  });

  it("PEM armour round-trips arbitrary bytes and the fingerprint has the DESIGN §7 shape", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), (bytes) => {
        const pem = derToPem(bytes, "CERTIFICATE");
        expect(pemBlocks(pem)).toEqual([{ label: "CERTIFICATE", der: Buffer.from(bytes) }]);
        expect(certificateFingerprint(pem)).toBe(certificateFingerprint(bytes));
        expect(certificateFingerprint(bytes)).toMatch(/^SHA256:[0-9A-F]{2}(:[0-9A-F]{2}){31}$/);
      }),
    );
  });
});
