/**
 * The dynamic-secret providers' port: what a provider (a PostgreSQL, MySQL or Redis driver behind
 * templated statements) does for core. Core never imports a driver; the assembly hands it the
 * providers (`createStrongroom({ dynamicSecretProviders })`, `@strongroom/dynamic-secrets` has
 * the real ones) and core decides everything else: who may lease, for how long, where a provider
 * may connect, what is sealed and what is answered.
 */
import type { z } from "zod";

/**
 * Where a provider connects: the address core resolved from the inputs' host and allowed
 * (`STRONGROOM_ALLOW_PRIVATE_DATABASES`), and the host name as given, for TLS verification.
 * A provider dials `address`, never the name again, so a name that re-resolves elsewhere
 * between the check and the connection cannot redirect it.
 */
export interface ProviderTarget {
  readonly address: string;
  readonly port: number;
  /** The host as the inputs name it: a DNS name or an IP literal. */
  readonly host: string;
}

/** One call's parameters: the provider's own (parsed) inputs and the target core vetted. */
export interface ProviderCall<I> {
  readonly inputs: I;
  readonly target: ProviderTarget;
}

/** What a new lease holds at the provider: the entity to revoke later, and the credentials handed out once. */
export interface ProviderLease {
  /** The user (role, ACL user) created; not secret — it is shown on the lease and used to renew and revoke. */
  readonly entityId: string;
  /** The credentials, by field (`DB_USERNAME`, `DB_PASSWORD`). Returned once; never logged. */
  readonly data: Readonly<Record<string, string>>;
}

/**
 * A provider. Every method rejects with an Error whose message is safe to show the caller: it
 * names what failed and never a password (providers redact what their drivers say). Core turns
 * such a rejection into a 400 naming the provider.
 */
export interface DynamicSecretProvider<I = any> {
  /** What clients send as `provider.type`: `sql-database`, `redis`. */
  readonly type: string;
  /** The inputs' schema. Its output (defaults filled in) is what core seals and hands back on every call. */
  readonly inputs: z.ZodType<I>;
  /** The fields of a lease's `data`, for agent-proxy credentials that name one (`dynamicSecretField`). */
  readonly fields: readonly string[];
  /** Host and port the inputs connect to; core resolves and vets them before every call. */
  endpoint(inputs: I): { host: string; port: number };
  /** Connects with the root credentials and checks they may create users (a clear error when not). */
  validate(call: ProviderCall<I>): Promise<void>;
  /** Creates a user that expires at `expiresAt`. All or nothing: a statement that fails leaves no user behind. */
  create(call: ProviderCall<I>, expiresAt: Date): Promise<ProviderLease>;
  /** Moves the user's expiry to `expiresAt` (a no-op for providers without one). */
  renew(call: ProviderCall<I>, entityId: string, expiresAt: Date): Promise<void>;
  /** Removes the user; all or nothing where the database allows (a retry after a failure starts over). */
  revoke(call: ProviderCall<I>, entityId: string): Promise<void>;
}
