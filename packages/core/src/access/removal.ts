import { PermissionDeniedError } from "../kernel/errors.js";
import { missingPermissions } from "../permissions/index.js";
import type { ProjectAccess } from "./project-access.js";

/**
 * Deleting a container (a folder, an environment, a project) deletes only what the actor may
 * delete (issue 15, principle 7): every area counts what it would remove and the actor may not
 * delete, and the container goes only when nothing is counted — otherwise 403 and nothing is
 * removed, since the check runs inside the removing transaction.
 */

/**
 * Whether the actor may delete every object of `subject` within `conditions`, whatever their name
 * and tags: then no object needs a look (no secret needs decrypting to learn its name).
 */
export const mayDeleteEverything = (access: Pick<ProjectAccess, "compiled">, subject: string, conditions?: Record<string, unknown>): boolean =>
  missingPermissions(access.compiled, [{ subject, action: "delete", ...(conditions ? { conditions } : {}) }]).length === 0;

/** What the actor may not delete, counted by kind (a plural noun such as "secrets"). */
export class RefusedRemovals {
  private readonly counts = new Map<string, number>();

  /** Counts the object when `allowed` is false. */
  note(kind: string, allowed: boolean): void {
    if (!allowed) this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  get isEmpty(): boolean {
    return this.counts.size === 0;
  }

  /**
   * The refusal, or undefined when nothing was counted. It says how many, never which: the
   * actor may not be allowed to know the names of what it may not delete.
   */
  message(container: string): string | undefined {
    if (this.isEmpty) return undefined;
    const parts = [...this.counts].map(([kind, count]) => `${count} ${count === 1 ? singular(kind) : kind}`);
    const listed = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
    return `You are not allowed to delete ${container}: it holds ${listed} you are not allowed to delete`;
  }

  /** 403 naming the counts, when anything was counted. */
  assertNone(container: string): void {
    const message = this.message(container);
    if (message !== undefined) throw new PermissionDeniedError(message);
  }
}

const singular = (kind: string): string => (kind.endsWith("ies") ? `${kind.slice(0, -3)}y` : kind.replace(/s$/, ""));
