import { createHash } from "node:crypto";
import { caNeedsReplacing, createProxyCa, loadProxyCa, type ProxyCa } from "../identity/certificate-authority.js";
import { ControlPlaneRefusedError, ProxyRevokedError, type ControlPlane } from "./control-plane.js";
import { loadSealer, prepareDataDir, readState, writeState, type StoredState } from "../state/data-dir.js";
import type { Sealer } from "../state/sealing.js";

/**
 * Start-up: the proxy's CA (created on first start) and its enrollment with the server. A proxy
 * already enrolled with this server reuses its access token and ignores the enrollment token,
 * which was spent; one whose token the server refuses enrolls again only with a different,
 * unspent enrollment token, keeping its CA so agents need not trust a new one.
 */
export interface EnrollmentInput {
  dataDir: string;
  controlPlane: ControlPlane;
  enrollmentToken?: string;
  /** Replaces the key file (base64 from the environment, for example). */
  sealingKey?: Buffer;
  now: () => Date;
}

export interface EnrolledProxy {
  ca: ProxyCa;
  proxyId: string;
  name: string;
  /** True when this start enrolled (rather than resuming an earlier enrollment). */
  enrolledNow: boolean;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export async function establishEnrollment(input: EnrollmentInput): Promise<EnrolledProxy> {
  const { dataDir, controlPlane } = input;
  await prepareDataDir(dataDir);
  const sealer = await loadSealer(dataDir, input.sealingKey);
  let state = await readState(dataDir);
  let ca = state && loadProxyCa({ certificatePem: state.ca.certificate, privateKeyPem: sealer.open("ca-private-key", state.ca.privateKey) });

  if (!state || !ca || caNeedsReplacing(ca, input.now())) {
    const pair = await createProxyCa(input.now());
    // The server pins the old CA's fingerprint: a new CA means enrolling again.
    state = { version: 1, ca: { certificate: pair.certificatePem, privateKey: sealer.seal("ca-private-key", pair.privateKeyPem) }, enrollment: null };
    await writeState(dataDir, state);
    ca = loadProxyCa(pair);
  }

  const previous = state.enrollment?.server === controlPlane.baseUrl ? state.enrollment : null;
  if (previous) {
    controlPlane.useAccessToken(sealer.open("access-token", previous.accessToken));
    try {
      await controlPlane.heartbeat();
      return { ca, proxyId: previous.proxyId, name: previous.name, enrolledNow: false };
    } catch (error) {
      if (!(error instanceof ProxyRevokedError)) throw error;
      const fresh = input.enrollmentToken !== undefined && sha256(input.enrollmentToken) !== previous.enrollmentTokenHash;
      if (!fresh) throw new ProxyRevokedError(`${error.message}. Issue a new enrollment token for this proxy and start it with --enrollment-token`);
    }
  }
  return enroll(input, sealer, state, ca);
}

async function enroll(input: EnrollmentInput, sealer: Sealer, state: StoredState, ca: ProxyCa): Promise<EnrolledProxy> {
  const { controlPlane, enrollmentToken } = input;
  if (!enrollmentToken) {
    throw new Error(`this proxy is not enrolled with ${controlPlane.baseUrl}: start it with --enrollment-token`);
  }
  const answer = await controlPlane.enroll(enrollmentToken, ca.certificatePem).catch((error: unknown) => {
    if (error instanceof ControlPlaneRefusedError && error.status === 401) {
      throw new Error("the server refused the enrollment token: it is unknown, already used or expired (tokens last one hour)");
    }
    if (error instanceof ControlPlaneRefusedError) throw new Error(`the server refused to enroll this proxy: ${error.message}`);
    throw error;
  });
  await writeState(input.dataDir, {
    ...state,
    enrollment: {
      server: controlPlane.baseUrl,
      proxyId: answer.proxyId,
      name: answer.name,
      accessToken: sealer.seal("access-token", answer.accessToken),
      enrollmentTokenHash: sha256(enrollmentToken),
    },
  });
  controlPlane.useAccessToken(answer.accessToken);
  return { ca, proxyId: answer.proxyId, name: answer.name, enrolledNow: true };
}
