import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", cli: "src/server/cli.ts", variables: "src/server/variables.ts", "testing/index": "src/testing/index.ts" },
  external: ["vitest"],
  format: ["esm"],
  dts: { entry: { index: "src/index.ts", variables: "src/server/variables.ts", "testing/index": "src/testing/index.ts" } },
  clean: true,
  sourcemap: true,
  target: "node20",
  // The server loads this at start-up: less text to scan and keep in memory (issue #22). Names
  // stay; the source maps lead stack traces back to the sources.
  minifyWhitespace: true,
  minifySyntax: true,
});
