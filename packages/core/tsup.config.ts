import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    storage: "src/entries/storage.ts",
    x509: "src/entries/x509.ts",
    agent: "src/entries/agent.ts",
    maintenance: "src/entries/maintenance.ts",
    audit: "src/entries/audit.ts",
    zod: "src/entries/zod.ts",
    "testing/index": "src/testing/index.ts",
    "testing/crash-child": "src/testing/crash-child.ts",
    "testing/lease-child": "src/testing/lease-child.ts",
  },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The server loads this at start-up: less text to scan and keep in memory (issue #22). Names
  // stay; the source maps lead stack traces back to the sources.
  minifyWhitespace: true,
  minifySyntax: true,
  external: ["vitest", "smtp-server"],
  // Bundled, not imported from node_modules: see src/entries/zod.ts.
  noExternal: ["zod"],
});
