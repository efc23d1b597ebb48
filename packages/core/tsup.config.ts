import { dirname, resolve } from "node:path";
import type { Plugin } from "esbuild";
import { defineConfig } from "tsup";

/**
 * zod's `z` carries `z.locales`, its error messages in ~50 languages (~290 KB of the bundle, all
 * evaluated at start-up: issue #22), which esbuild cannot shake from a namespace that escapes.
 * Strongroom answers in English only (zod registers `en` itself as the default): the bundled
 * `locales` holds `en` alone.
 */
const zodEnglishOnly: Plugin = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: resolve(dirname(args.importer), "../locales/en.js"), namespace: "zod-english-only" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: dirname(args.path),
    }));
  },
};

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
  esbuildPlugins: [zodEnglishOnly],
});
