import { operations } from "@strongroom/core";
import { del, get, patch, post, type Route } from "./route.js";

/** Custom project roles and identity additional privileges, both generations (DESIGN.md §4). */
export const permissionRoutes: readonly Route[] = [
  post("/api/v1/projects/{projectId}/roles", operations.customRoles.create),
  get("/api/v1/projects/{projectId}/roles", operations.customRoles.list),
  get("/api/v1/projects/{projectId}/roles/{roleId}", operations.customRoles.get),
  patch("/api/v1/projects/{projectId}/roles/{roleId}", operations.customRoles.update),
  del("/api/v1/projects/{projectId}/roles/{roleId}", operations.customRoles.delete),

  get("/api/v1/additional-privilege/identity", operations.privilegesV1.list),
  get("/api/v1/additional-privilege/identity/{privilegeSlug}", operations.privilegesV1.get),
  post("/api/v1/additional-privilege/identity/permanent", operations.privilegesV1.createPermanent),
  post("/api/v1/additional-privilege/identity/temporary", operations.privilegesV1.createTemporary),
  patch("/api/v1/additional-privilege/identity", operations.privilegesV1.update),
  del("/api/v1/additional-privilege/identity", operations.privilegesV1.delete),

  get("/api/v2/identity-project-additional-privilege", operations.privilegesV2.list),
  get("/api/v2/identity-project-additional-privilege/slug/{privilegeSlug}", operations.privilegesV2.getBySlug),
  get("/api/v2/identity-project-additional-privilege/{id}", operations.privilegesV2.get),
  post("/api/v2/identity-project-additional-privilege", operations.privilegesV2.create),
  patch("/api/v2/identity-project-additional-privilege/{id}", operations.privilegesV2.update),
  del("/api/v2/identity-project-additional-privilege/{id}", operations.privilegesV2.delete),
];
