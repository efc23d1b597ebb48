/** The certificate manager's areas, as `createStrongroom` exposes them (DESIGN.md §2). */
export { alertOperations } from "./alert-operations.js";
export { certificateAuthorityOperations } from "./ca-operations.js";
export { certificateOperations } from "./certificate-operations.js";
export { discoveryOperations } from "./discovery-operations.js";
export { installationOperations } from "./installation-operations.js";
export { certificateProfileOperations } from "./profile-operations.js";
export { alertEvaluationJob } from "./alert-job.js";
export { discoveryAutoScanJob } from "./discovery-autoscan.js";
export { settleBackgroundScans } from "./discovery-scan.js";
