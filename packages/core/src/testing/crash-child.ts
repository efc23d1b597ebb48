import { pathToFileURL } from "node:url";
import type { StrongroomStorage as Storage } from "../schema.js";

/**
 * Child process of the crash-safety test: opens storage through the given module's
 * `openStorage()`, then inserts CRASH_ROWS organizations in one transaction, chunk by chunk,
 * announcing "started" once `announceAfter` chunks are in so the parent knows when to kill it.
 * Usage: node --import tsx crash-child.ts <opener module path> <marker> <announceAfter>
 */
export const CRASH_ROWS = 5000;
const CHUNK = 100;

async function main() {
  const [opener, marker, announceAfter] = process.argv.slice(2);
  const { openStorage } = (await import(pathToFileURL(opener).href)) as { openStorage(): Promise<Storage> };
  const storage = await openStorage();
  await storage.transaction(async (tx) => {
    for (let chunk = 0; chunk * CHUNK < CRASH_ROWS; chunk++) {
      const rows = Array.from({ length: CHUNK }, (_, i) => {
        const n = chunk * CHUNK + i;
        return { id: `${marker}-${n}`, name: marker, slug: `${marker}-${n}`, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() };
      });
      await tx.tables.organizations.insertMany(rows);
      if (chunk === Number(announceAfter)) process.stdout.write("started\n");
    }
  });
  process.stdout.write("committed\n");
  await storage.close();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
