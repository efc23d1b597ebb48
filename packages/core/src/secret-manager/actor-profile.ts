import { accessRepository } from "../access/repository.js";
import { actorPrincipal, type Actor } from "../kernel/actor.js";
import type { Context } from "../kernel/context.js";
import { PermissionDeniedError } from "../kernel/errors.js";
import { userRepository } from "../tenancy/users/repository.js";

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

export async function actorProfile(ctx: Context, actor: Actor): Promise<ActorProfile> {
  const principal = actorPrincipal(actor);
  if (!principal) throw new PermissionDeniedError("Only users and machine identities act on secrets");
  if (principal.kind === "user") {
    const user = await ctx.repo(userRepository).byId(principal.id);
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
