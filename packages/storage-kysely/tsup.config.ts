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
});
