import type { TenancyRow } from "../tables.js";

export const toOrganization = (o: TenancyRow<"organizations">) => ({ id: o.id, name: o.name, slug: o.slug, createdAt: o.createdAt });

export const toUser = (u: TenancyRow<"users">) => ({
  id: u.id,
  email: u.email,
  username: u.username,
  firstName: u.firstName,
  lastName: u.lastName,
  isEmailVerified: u.isEmailVerified,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
});
