import { keyTables } from "../../crypto/tables.js";
import { defineRepository } from "../../kernel/context.js";
import { tablesOf } from "../../storage/table.js";

export const adminRepository = defineRepository("admin", (ctx) => {
  const keys = tablesOf(ctx.storage, keyTables);
  return {
    /**
     * Marks the instance as set up. The fixed id makes concurrent bootstraps collide on the
     * primary key (`UniqueViolationError`): exactly one wins.
     */
    claimBootstrap: () => keys.instanceMeta.insert({ id: "bootstrap", rootKeyCheck: "", createdAt: ctx.clock.now().toISOString() }),
  };
});
