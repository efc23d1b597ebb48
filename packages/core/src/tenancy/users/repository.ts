import { accessTables } from "../../access/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { newId } from "../../kernel/ids.js";
import { tablesOf } from "../../storage/table.js";
import { tenancyTables, type UserRow } from "../tables.js";

/** A user as it is created: the e-mail (already lower-cased) is also the username. */
export interface NewUser {
  email: string;
  passwordHash: string;
  firstName?: string;
  lastName?: string;
}

export const userRepository = defineRepository("users", (ctx) => {
  const t = tablesOf(ctx.storage, tenancyTables);
  const access = tablesOf(ctx.storage, accessTables);
  return {
    count: (): Promise<number> => t.users.count(),
    byId: (id: string): Promise<UserRow | undefined> => t.users.get(id),
    byEmail: (email: string): Promise<UserRow | undefined> => t.users.findOne({ email }),
    byIds: (ids: readonly string[]): Promise<UserRow[]> => (ids.length ? t.users.find({ id: { in: [...ids] } }) : Promise.resolve([])),
    byUsername: (username: string): Promise<UserRow | undefined> => t.users.findOne({ username }),

    /** The users of an organization among these usernames; names of non-members are left out. */
    async inOrganization(orgId: string, usernames: readonly string[]): Promise<UserRow[]> {
      const users = await t.users.find({ username: { in: [...usernames] } });
      if (!users.length) return [];
      const members = await access.orgMemberships.find({ orgId, userId: { in: users.map((u) => u.id) } });
      return users.filter((u) => members.some((m) => m.userId === u.id));
    },

    async create(user: NewUser): Promise<UserRow> {
      const now = ctx.clock.now().toISOString();
      const row: UserRow = {
        id: newId(),
        email: user.email,
        username: user.email,
        passwordHash: user.passwordHash,
        firstName: user.firstName ?? "",
        lastName: user.lastName ?? "",
        isEmailVerified: false,
        createdAt: now,
        updatedAt: now,
      };
      await t.users.insert(row);
      return row;
    },
  };
});
