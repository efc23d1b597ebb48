/** Settings of one Strongroom instance. Every field has a production-safe default. */
export interface StrongroomConfig {
  /** Discovery scans and agent proxies may reach private and loopback addresses (tests, labs). Default false. */
  allowPrivateTargets: boolean;
  /**
   * Dynamic secrets may connect to databases at private and loopback addresses (separate from
   * `allowPrivateTargets`). Metadata and link-local addresses stay refused. Default false.
   */
  allowPrivateDatabases: boolean;
  /** Leases a dynamic secret may have at once (active or being revoked). Default 100. */
  dynamicSecretLeaseLimit: number;
  /** Lifetime of a user's login token, seconds. Default 1 day. */
  userTokenTtlSeconds: number;
  /** Default machine-identity access-token TTL, seconds. Default 30 days. */
  identityTokenTtlSeconds: number;
  /** Failed universal-auth logins before a client id is locked, and for how long. */
  loginLockout: { maxFailures: number; lockSeconds: number };
  /**
   * Failed password logins per (account, client address) within a window, after which every
   * login of that pair is refused (429) until the window ends. Default 5 in 15 minutes.
   */
  passwordLockout: { maxFailures: number; windowSeconds: number };
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
  /** Event streams open at once on this instance; past it new subscriptions get 503 with Retry-After. Default 20000. */
  maxEventStreams: number;
  /**
   * How long a decrypted secret value may stay in this process's memory for later reads of the
   * same stored ciphertext, seconds (at most 300). 0: every read decrypts again. Default 300.
   */
  plaintextCacheSeconds: number;
}

export const defaultConfig: StrongroomConfig = {
  allowPrivateTargets: false,
  allowPrivateDatabases: false,
  dynamicSecretLeaseLimit: 100,
  userTokenTtlSeconds: 24 * 60 * 60,
  identityTokenTtlSeconds: 30 * 24 * 60 * 60,
  loginLockout: { maxFailures: 3, lockSeconds: 5 * 60 },
  passwordLockout: { maxFailures: 5, windowSeconds: 15 * 60 },
  smtpFrom: "strongroom@localhost",
  scanConcurrency: 16,
  scanTimeoutMs: 5000,
  webhookTimeoutMs: 10_000,
  maxEventStreams: 20_000,
  plaintextCacheSeconds: 300,
};

export function resolveConfig(config: Partial<StrongroomConfig> = {}): StrongroomConfig {
  return {
    ...defaultConfig,
    ...config,
    loginLockout: { ...defaultConfig.loginLockout, ...config.loginLockout },
    passwordLockout: { ...defaultConfig.passwordLockout, ...config.passwordLockout },
  };
}
