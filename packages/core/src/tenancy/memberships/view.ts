import type { CustomRoleRow, IdentityRow, MembershipRoleRow, MembershipRow } from "../../access/tables.js";
import { temporaryGrantOf } from "../../kernel/schemas.js";
import type { UserRow } from "../tables.js";

export const toMembershipRole = (r: MembershipRoleRow) => ({
  id: r.id,
  role: r.role,
  projectMembershipId: r.membershipId,
  customRoleId: r.customRoleId,
  ...temporaryGrantOf(r),
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
});

export const toUserMembership = (m: MembershipRow, userId: string, roles: MembershipRoleRow[]) => ({
  id: m.id,
  userId,
  projectId: m.projectId,
  roles: roles.map(toMembershipRole),
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

export const toIdentityMembership = (m: MembershipRow, identityId: string, roles: MembershipRoleRow[]) => ({
  id: m.id,
  identityId,
  projectId: m.projectId,
  roles: roles.map(toMembershipRole),
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

/** A user's membership as the details endpoint shows it: custom roles carry their name and slug. */
export const toMembershipDetails = (m: MembershipRow, user: UserRow, roles: MembershipRoleRow[], custom: CustomRoleRow[]) => ({
  id: m.id,
  userId: user.id,
  projectId: m.projectId,
  user: {
    username: user.username,
    id: user.id,
    email: user.email,
    isEmailVerified: user.isEmailVerified,
    firstName: user.firstName,
    lastName: user.lastName,
    authMethods: ["email"],
    publicKey: "",
  },
  roles: roles.map((r) => {
    const c = custom.find((x) => x.id === r.customRoleId);
    return {
      id: r.id,
      role: r.role,
      customRoleId: r.customRoleId,
      customRoleName: c?.name ?? null,
      customRoleSlug: c?.slug ?? null,
      ...temporaryGrantOf(r),
    };
  }),
});

/** A user's membership in lists and single reads: the details with the membership's timestamps. */
export const toUserMembershipDetails = (m: MembershipRow, user: UserRow, roles: MembershipRoleRow[], custom: CustomRoleRow[]) => ({
  ...toMembershipDetails(m, user, roles, custom),
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});

/** A machine identity's membership with the identity it is for. */
export const toIdentityMembershipDetails = (m: MembershipRow, identity: IdentityRow, roles: MembershipRoleRow[], authMethods: string[]) => ({
  ...toIdentityMembership(m, identity.id, roles),
  identity: { id: identity.id, name: identity.name, authMethods },
});
