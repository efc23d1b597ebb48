import { defineRepository } from "../../kernel/context.js";
import { UniqueViolationError } from "../../kernel/errors.js";
import { tablesOf } from "../../storage/table.js";
import { certificateRevocationLists, type CrlRow } from "../tables.js";

/** Each CA's current CRL. */
export const crlRepository = defineRepository("certificate-revocation-lists", (ctx) => {
  const t = tablesOf(ctx.storage, { certificateRevocationLists });
  return {
    current: (caId: string): Promise<CrlRow | undefined> => t.certificateRevocationLists.findOne({ caId }),
    /** By the CRL's own id, which stays the same through every re-signing. */
    byId: (id: string): Promise<CrlRow | undefined> => t.certificateRevocationLists.get(id),

    /**
     * Stores a newly signed CRL in place of `previous` (none: the CA's first), as one conditional
     * statement: false when another signing replaced it first, so two CRLs never share a number
     * and a newer one is never overwritten by an older.
     */
    async replace(previous: CrlRow | undefined, next: CrlRow): Promise<boolean> {
      if (!previous) {
        try {
          await t.certificateRevocationLists.insert(next);
          return true;
        } catch (error) {
          if (error instanceof UniqueViolationError) return false;
          throw error;
        }
      }
      const { id: _id, createdAt: _created, ...changes } = next;
      return (await t.certificateRevocationLists.update({ caId: previous.caId, number: previous.number }, changes)) === 1;
    },
  };
});
