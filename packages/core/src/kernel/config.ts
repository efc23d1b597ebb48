/** Settings of one Strongroom instance. Every field has a production-safe default. */
export interface StrongroomConfig {
  /** Discovery scans and agent proxies may reach private and loopback addresses (tests, labs). Default false. */
  allowPrivateTargets: boolean;
  /** Lifetime of a user's login token, seconds. Default 1 day. */
  userTokenTtlSeconds: number;
  /** Default machine-identity access-token TTL, seconds. Default 30 days. */
  identityTokenTtlSeconds: number;
  /** Failed universal-auth logins before a client id is locked, and for how long. */
  loginLockout: { maxFailures: number; lockSeconds: number };
  /** `smtp://user:pass@host:port` for e-mail alert channels; unset means e-mail channels cannot send. */
  smtpUrl?: string;
  /** Sender address of alert e-mails. */
  smtpFrom: string;
  /** Discovery scans: TLS handshakes in flight at once per scan. Default 16. */
  scanConcurrency: number;
  /** Discovery scans: limit per target from dialling to the end of the handshake, ms. Default 5000. */
  scanTimeoutMs: number;
  /**
   * Extra PEM CA certificate(s) trusted for alert webhooks, on top of the system roots: for
   * receivers behind a private CA (and tests). Default none.
   */
  webhookCa?: string;
  /** Alert webhooks: limit per delivery, ms. Default 10000. */
  webhookTimeoutMs: number;
}

export const defaultConfig: StrongroomConfig = {
  allowPrivateTargets: false,
  userTokenTtlSeconds: 24 * 60 * 60,
  identityTokenTtlSeconds: 30 * 24 * 60 * 60,
  loginLockout: { maxFailures: 3, lockSeconds: 5 * 60 },
  smtpFrom: "strongroom@localhost",
  scanConcurrency: 16,
  scanTimeoutMs: 5000,
  webhookTimeoutMs: 10_000,
};

export function resolveConfig(config: Partial<StrongroomConfig> = {}): StrongroomConfig {
  return {
    ...defaultConfig,
    ...config,
    loginLockout: { ...defaultConfig.loginLockout, ...config.loginLockout },
  };
}
