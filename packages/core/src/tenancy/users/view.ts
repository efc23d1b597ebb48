import type { UserRow } from "../tables.js";

export const toUser = (u: UserRow) => ({
  id: u.id,
  email: u.email,
  username: u.username,
  firstName: u.firstName,
  lastName: u.lastName,
  isEmailVerified: u.isEmailVerified,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
});
