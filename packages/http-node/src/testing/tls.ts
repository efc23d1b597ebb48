import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRootCa, issueCertificate, type IssuedCertificate } from "@strongroom/core/x509";

export interface TestCa {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
  /** The CA certificate written as a PEM file (for `--ca-file`, `STRONGROOM_CA_FILE`). */
  readonly caFile: string;
}

export interface TestServerCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  /** SHA-256 fingerprint of the leaf, as `certificateFingerprint` gives it. */
  readonly fingerprintSha256: string;
  readonly serialNumber: string;
}

/** A private CA for a test's HTTPS servers, made with the repository's own x509 toolkit. */
export async function createTestCa(dir: string, commonName = "Strongroom Test CA"): Promise<TestCa> {
  const now = new Date(Date.now() - 60_000);
  const ca = await createRootCa({ commonName, keyAlgorithm: "EC_prime256v1", ttlMs: 86_400_000, now });
  const caFile = join(dir, `${commonName.replace(/\W+/g, "-").toLowerCase()}.pem`);
  writeFileSync(caFile, ca.certificatePem);
  return { certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem!, caFile };
}

/**
 * A server certificate for 127.0.0.1, ::1 and localhost signed by `ca`, written (over whatever
 * was there) to `<dir>/<name>.crt` and `<dir>/<name>.key` (TLS_CERT_FILE, TLS_KEY_FILE).
 */
export async function writeServerCertificate(ca: TestCa, dir: string, name = "server"): Promise<TestServerCertificate> {
  const now = new Date(Date.now() - 60_000);
  const leaf: IssuedCertificate = await issueCertificate({
    issuer: { certificatePem: ca.certificatePem, privateKeyPem: ca.privateKeyPem },
    keyAlgorithm: "EC_prime256v1",
    subject: { commonName: "127.0.0.1" },
    subjectAltNames: [
      { type: "ip_address", value: "127.0.0.1" },
      { type: "ip_address", value: "::1" },
      { type: "dns_name", value: "localhost" },
    ],
    extendedKeyUsages: ["server_auth"],
    keyUsages: ["digital_signature"],
    ttlMs: 86_000_000,
    now,
  });
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  writeFileSync(certFile, leaf.certificatePem);
  writeFileSync(keyFile, leaf.privateKeyPem!, { mode: 0o600 });
  return { certFile, keyFile, fingerprintSha256: leaf.fingerprintSha256, serialNumber: leaf.serialNumber };
}
