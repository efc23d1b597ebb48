import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Tests run against the TypeScript sources of every package, so no build is needed first.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@strongroom\/core\/testing$/, replacement: src("./packages/core/src/testing/index.ts") },
      { find: /^@strongroom\/core\/(storage|x509|agent|maintenance|audit)$/, replacement: src("./packages/core/src/entries/$1.ts") },
      { find: /^@strongroom\/core$/, replacement: src("./packages/core/src/index.ts") },
      { find: /^@strongroom\/storage-kysely$/, replacement: src("./packages/storage-kysely/src/index.ts") },
      { find: /^@strongroom\/storage-(sqlite|postgres)\/testing$/, replacement: src("./packages/storage-$1/src/testing.ts") },
      { find: /^@strongroom\/storage-sqlite$/, replacement: src("./packages/storage-sqlite/src/index.ts") },
      { find: /^@strongroom\/storage-postgres$/, replacement: src("./packages/storage-postgres/src/index.ts") },
      { find: /^@strongroom\/http-node\/testing$/, replacement: src("./packages/http-node/src/testing/index.ts") },
      { find: /^@strongroom\/http-node\/variables$/, replacement: src("./packages/http-node/src/server/variables.ts") },
      { find: /^@strongroom\/http-node$/, replacement: src("./packages/http-node/src/index.ts") },
      { find: /^@strongroom\/dynamic-secrets\/testing$/, replacement: src("./packages/dynamic-secrets/src/testing.ts") },
      { find: /^@strongroom\/dynamic-secrets$/, replacement: src("./packages/dynamic-secrets/src/index.ts") },
      { find: /^@strongroom\/agent-proxy$/, replacement: src("./packages/agent-proxy/src/index.ts") },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    setupFiles: ["./vitest.setup.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
  },
});
