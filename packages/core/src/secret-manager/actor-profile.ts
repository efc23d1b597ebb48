import { accessRepository } from "../access/repository.js";
import { actorPrincipal, type Actor } from "../kernel/actor.js";
import { defineRepository, type Context } from "../kernel/context.js";
import { PermissionDeniedError } from "../kernel/errors.js";
import { tablesOf } from "../storage/table.js";
import { users, type UserRow } from "../tenancy/tables.js";

/** Who a principal is, as environments' `deletedBy` and secrets' `actor` show it. */
export interface ActorProfile {
  type: "user" | "identity";
  id: string;
  email: string;
  username: string;
  firstName: string;
  lastName: string;
  /** A display name: the user's full name (else e-mail), or the identity's name. */
  name: string;
}

/** The one read of tenancy's users the secret manager makes: the author of a change. */
const authorRepository = defineRepository("secret-manager.authors", (ctx) => {
  const t = tablesOf(ctx.storage, { users });
  return { user: (id: string): Promise<UserRow | undefined> => t.users.get(id) };
});

export async function actorProfile(ctx: Context, actor: Actor): Promise<ActorProfile> {
  const principal = actorPrincipal(actor);
  if (!principal) throw new PermissionDeniedError("Only users and machine identities act on secrets");
  if (principal.kind === "user") {
    const user = await ctx.repo(authorRepository).user(principal.id);
    const fullName = user ? `${user.firstName} ${user.lastName}`.trim() : "";
    return {
      type: "user",
      id: principal.id,
      email: user?.email ?? "",
      username: user?.username ?? "",
      firstName: user?.firstName ?? "",
      lastName: user?.lastName ?? "",
      name: fullName || user?.email || principal.id,
    };
  }
  const identity = await ctx.repo(accessRepository).identity(principal.id);
  const name = identity?.name ?? principal.id;
  return { type: "identity", id: principal.id, email: "", username: name, firstName: name, lastName: "", name };
}
