import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateEcJwk, generateKey } from "../../src/x509/keys.js";

describe("generated EC keys", () => {
  it.each([
    ["prime256v1", "P-256", 32],
    ["secp384r1", "P-384", 48],
  ] as const)("%s: a private JWK node:crypto imports, whose key signs and whose public half verifies", (curve, crv, bytes) => {
    const jwk = generateEcJwk(curve);
    expect(jwk).toMatchObject({ kty: "EC", crv });
    const privateKey = createPrivateKey({ key: jwk, format: "jwk" });
    expect(privateKey.asymmetricKeyDetails?.namedCurve).toBe(curve);
    const publicKey = createPublicKey(privateKey);
    expect(publicKey.export({ format: "jwk" })).toEqual({ kty: "EC", crv, x: jwk.x, y: jwk.y });
    const signature = sign("sha256", Buffer.from("tbs"), privateKey);
    expect(verify("sha256", Buffer.from("tbs"), publicKey, signature)).toBe(true);
    for (const field of ["x", "y", "d"] as const) expect(Buffer.from(jwk[field]!, "base64url")).toHaveLength(bytes);
  });

  it("writes every private scalar full-length, a leading zero byte included", () => {
    // About one scalar in 256 starts with a zero byte, which ECDH hands over without it.
    let withLeadingZero = 0;
    for (let i = 0; i < 4000 && withLeadingZero === 0; i++) {
      const d = Buffer.from(generateEcJwk("prime256v1").d!, "base64url");
      expect(d).toHaveLength(32);
      if (d[0] === 0) withLeadingZero++;
    }
    expect(withLeadingZero).toBeGreaterThan(0);
  });

  it("keys differ from one generation to the next", async () => {
    const [a, b] = await Promise.all([generateKey("EC_prime256v1"), generateKey("EC_prime256v1")]);
    expect(a.d).not.toBe(b.d);
    expect(a.x).not.toBe(b.x);
  });
});
