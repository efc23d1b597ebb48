import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", kysely: "src/kysely.ts" },
  // Bundled, not imported from node_modules: see src/kysely.ts.
  noExternal: ["kysely"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The server loads this at start-up: less text to scan and keep in memory (issue #22). Names
  // stay; the source maps lead stack traces back to the sources.
  minifyWhitespace: true,
  minifySyntax: true,
});
