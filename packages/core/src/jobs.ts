import { purgeLapsedAgentRecords } from "./agent-vault/housekeeping.js";
import { auditCheckpointJob } from "./audit/jobs/checkpoint-job.js";
import { auditRetentionJob } from "./audit/jobs/retention.js";
import { alertEvaluationJob, discoveryAutoScanJob } from "./cert-manager/operations.js";
import { leaseExpiryJob } from "./dynamic-secrets/leases/expiry-job.js";
import { housekeepingJob } from "./jobs/housekeeping.js";
import { keyRotationJob } from "./kms/rotation-job.js";
import { purgeOldJobRuns, type ScheduledJob } from "./jobs/scheduler.js";
import { environmentPurgeJob } from "./secret-manager/environments/purge.js";
import { purgeLapsedTokens } from "./tenancy/auth/tokens.js";

/** Every periodic job of the service, assembled from the areas that contribute one. */
export const scheduledJobs: readonly ScheduledJob[] = [
  housekeepingJob([purgeLapsedTokens, purgeLapsedAgentRecords, purgeOldJobRuns]),
  environmentPurgeJob,
  discoveryAutoScanJob,
  alertEvaluationJob,
  keyRotationJob,
  leaseExpiryJob,
  auditCheckpointJob,
  auditRetentionJob,
];
