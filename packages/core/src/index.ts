/**
 * `@strongroom/core`: create an instance, call its operations, handle its errors. Adapters find
 * what they are written against under subpaths: `@strongroom/core/storage` (the storage port),
 * `@strongroom/core/testing` (contract suites and test worlds), `@strongroom/core/x509` and
 * `@strongroom/core/agent` (what the agent proxy shares with the server).
 */
export { createStrongroom, type AnyOperation, type Strongroom, type StrongroomOptions } from "./strongroom.js";
export { operations, type Operations } from "./operations.js";
export { anonymous, type Actor, type RequestContext } from "./kernel/actor.js";
export { systemClock, ManualClock, type Clock } from "./kernel/clock.js";
export { defaultConfig, resolveConfig, type StrongroomConfig } from "./kernel/config.js";
export { generateRootKey, parseRootKey, RootKeyMismatchError } from "./crypto/keyring.js";
export { randomSlices } from "./crypto/aead.js";
export {
  StrongroomError,
  BadRequestError,
  UnauthorizedError,
  PermissionDeniedError,
  PermissionBoundaryError,
  NotFoundError,
  PayloadTooLargeError,
  ValidationError,
  RateLimitError,
  ServiceUnavailableError,
  type ErrorCode,
} from "./kernel/errors.js";
export { createLocalBus, type EventBus, type ProjectEvent, type SecretEventType } from "./kernel/bus.js";
export { createMemoryStorage } from "./schema.js";
export type { Audience, NotModified, OperationDef, Revalidation } from "./kernel/operation.js";
export { NOT_MODIFIED } from "./kernel/operation.js";
export type { Context, LogSink } from "./kernel/context.js";
export type {
  CertManagerPorts,
  MailMessage,
  MailSender,
  WebhookRequest,
  WebhookPoster,
  TlsScanner,
  ScanTarget,
  ScanOptions,
  ScanResult,
  ScannedCertificate,
} from "./cert-manager/ports.js";
export type { Delivery, EventDelivery, ProjectEventSubscription, SubscribedEvent } from "./events/index.js";
export type * from "./types.js";
export { queryParams } from "./kernel/schemas.js";
export type { AuditSink, AuditSinkLag } from "./audit/sink.js";
export type { AuditControl } from "./audit/api.js";
export type { AuditEntry, AuditHead, AuditCheckpoint, AuditQuery, AuditVerifyResult, AuditOutcome, AuditActorType } from "./audit/schemas.js";
export type { AuditQueueOptions } from "./audit/log.js";
export type { DynamicSecretProvider, ProviderCall, ProviderLease, ProviderTarget } from "./dynamic-secrets/ports.js";
