import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routes } from "../src/routes/index.js";
import { withRouteIndex } from "../src/route-index.js";

describe("the README's route index", () => {
  it("lists every route the server answers, as the route table says (npm run routes rewrites it)", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    expect(withRouteIndex(readme, routes) === readme, "README route index is stale: run `npm run routes`").toBe(true);
  });
});
