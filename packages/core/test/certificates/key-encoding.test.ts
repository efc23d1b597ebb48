import { type JsonWebKey, generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeKeyPair } from "../../src/x509/key-encoding.js";
import type { KeyAlgorithm } from "../../src/x509/algorithms.js";

const NODE_OPTIONS: Record<KeyAlgorithm, ["rsa", { modulusLength: number }] | ["ec", { namedCurve: string }]> = {
  RSA_2048: ["rsa", { modulusLength: 2048 }],
  RSA_3072: ["rsa", { modulusLength: 3072 }],
  RSA_4096: ["rsa", { modulusLength: 4096 }],
  EC_prime256v1: ["ec", { namedCurve: "prime256v1" }],
  EC_secp384r1: ["ec", { namedCurve: "secp384r1" }],
};

function generate(algorithm: KeyAlgorithm) {
  const [type, options] = NODE_OPTIONS[algorithm];
  return type === "rsa" ? generateKeyPairSync("rsa", options) : generateKeyPairSync("ec", options);
}

describe("encodeKeyPair writes what OpenSSL writes", () => {
  it.each<KeyAlgorithm>(["EC_prime256v1", "EC_secp384r1", "RSA_2048"])("%s: SPKI and PKCS #8 byte for byte", (algorithm) => {
    const { publicKey, privateKey } = generate(algorithm);
    const encoded = encodeKeyPair(privateKey.export({ format: "jwk" }), algorithm);
    expect(encoded.subjectPublicKeyInfo).toEqual(publicKey.export({ type: "spki", format: "der" }));
    expect(encoded.privateKeyPem).toBe(privateKey.export({ type: "pkcs8", format: "pem" }));
  });

  it("pads a JWK coordinate that arrives without its leading zero byte", () => {
    // Roughly one P-256 key in 128 has a zero first byte in x or d; keep generating until one does.
    for (;;) {
      const { publicKey, privateKey } = generate("EC_prime256v1");
      const jwk = privateKey.export({ format: "jwk" }) as JsonWebKey & { x: string; d: string };
      const x = Buffer.from(jwk.x, "base64url");
      const d = Buffer.from(jwk.d, "base64url");
      if (x[0] !== 0 && d[0] !== 0) continue;
      const trimmed = { ...jwk, x: x.subarray(x[0] === 0 ? 1 : 0).toString("base64url"), d: d.subarray(d[0] === 0 ? 1 : 0).toString("base64url") };
      const encoded = encodeKeyPair(trimmed, "EC_prime256v1");
      expect(encoded.subjectPublicKeyInfo).toEqual(publicKey.export({ type: "spki", format: "der" }));
      expect(encoded.privateKeyPem).toBe(privateKey.export({ type: "pkcs8", format: "pem" }));
      return;
    }
  });

  it("refuses a coordinate longer than the curve", () => {
    const jwk = generate("EC_prime256v1").privateKey.export({ format: "jwk" });
    expect(() => encodeKeyPair({ ...jwk, x: Buffer.alloc(33, 1).toString("base64url") }, "EC_prime256v1")).toThrow(/longer than the curve/);
    expect(() => encodeKeyPair({ ...jwk, d: undefined }, "EC_prime256v1")).toThrow(/no d/);
  });
});
