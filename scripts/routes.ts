/** Rewrites the README's route index from the route table (`npm run routes`). */
import { readFileSync, writeFileSync } from "node:fs";
import { routes } from "../packages/http-node/src/routes/index.js";
import { withRouteIndex } from "../packages/http-node/src/route-index.js";

const file = new URL("../README.md", import.meta.url);
writeFileSync(file, withRouteIndex(readFileSync(file, "utf8"), routes));
console.log(`README route index: ${routes.length} routes`);
