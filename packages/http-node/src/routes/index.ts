import { agentVaultRoutes } from "./agent-vault.js";
import { auditRoutes } from "./audit.js";
import { certificateRoutes } from "./certificates.js";
import { dynamicSecretRoutes } from "./dynamic-secrets.js";
import { eventRoutes } from "./events.js";
import { foundationRoutes } from "./foundation.js";
import { kmsRoutes } from "./kms.js";
import { permissionRoutes } from "./permissions.js";
import type { Route } from "./route.js";
import { secretRoutes } from "./secrets.js";
import { tenancyRoutes } from "./tenancy.js";

export { get, post, patch, put, del, type HttpMethod, type Route, type RouteOptions } from "./route.js";

/** Every route the server answers. Each area keeps its rows in its own file; add the file here. */
export const routes: readonly Route[] = [...foundationRoutes, ...tenancyRoutes, ...permissionRoutes, ...secretRoutes, ...eventRoutes, ...agentVaultRoutes, ...certificateRoutes, ...kmsRoutes, ...dynamicSecretRoutes, ...auditRoutes];
