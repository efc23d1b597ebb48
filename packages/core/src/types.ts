import type { z } from "zod";
import type { accessBundleSchema } from "./agent-vault/bundles/schemas.js";
import type { proxyAdminViewSchema } from "./agent-vault/proxies/schemas.js";
import type { proxiedServiceSchema } from "./agent-vault/services/schemas.js";
import type { alertSchema } from "./cert-manager/alerts/schemas.js";
import type { certificateAuthoritySchema } from "./cert-manager/authorities/schemas.js";
import type { certificateRecordSchema, issuedCertificateSchema } from "./cert-manager/certificates/schemas.js";
import type { organizationSchema, userSchema } from "./kernel/schemas.js";
import type { secretListSchema, secretSchema } from "./secret-manager/secrets/schemas.js";
import type { identityMembershipSchema, userMembershipSchema } from "./tenancy/memberships/schemas.js";
import type { projectSchema } from "./tenancy/projects/schemas.js";
import type { projectRoleSchema } from "./tenancy/roles/schemas.js";

/** The shapes callers hold, as operations answer them (each is its zod schema's output). */
export type Organization = z.output<typeof organizationSchema>;
export type User = z.output<typeof userSchema>;
export type Project = z.output<typeof projectSchema>;
export type ProjectRole = z.output<typeof projectRoleSchema>;
export type UserMembership = z.output<typeof userMembershipSchema>;
export type IdentityMembership = z.output<typeof identityMembershipSchema>;
export type Secret = z.output<typeof secretSchema>;
export type SecretList = z.output<typeof secretListSchema>;
export type AgentProxy = z.output<typeof proxyAdminViewSchema>;
export type AccessBundle = z.output<typeof accessBundleSchema>;
export type ProxiedService = z.output<typeof proxiedServiceSchema>;
export type CertificateAuthority = z.output<typeof certificateAuthoritySchema>;
export type IssuedCertificate = z.output<typeof issuedCertificateSchema>;
export type CertificateRecord = z.output<typeof certificateRecordSchema>;
export type CertificateAlert = z.output<typeof alertSchema>;
