/** The certificate manager's areas, as `createStrongroom` exposes them (DESIGN.md §2). */
export { alertOperations } from "./alerts/operations.js";
export { certificateAuthorityOperations } from "./authorities/operations.js";
export { certificateOperations } from "./certificates/operations.js";
export { discoveryOperations } from "./discovery/operations.js";
export { installationOperations } from "./installations/operations.js";
export { certificateProfileOperations } from "./profiles/operations.js";
export { revocationOperations } from "./revocation/operations.js";
export { alertEvaluationJob } from "./alerts/job.js";
export { discoveryAutoScanJob } from "./discovery/autoscan.js";
export { settleBackgroundScans } from "./discovery/scan.js";
