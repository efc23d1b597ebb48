import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStrongroomServer, silentLogger, type StrongroomServer } from "@strongroom/http-node";

/**
 * The API reference page in a real browser: Debian's Chromium driven by playwright-core (which
 * downloads no browser of its own). CI installs Chromium (.ci/run); elsewhere, without it, the
 * suite is skipped with a message saying how to run it.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must run the docs page test (.ci/run installs chromium)`);
if (!haveChromium) console.warn(`docs page test skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);

describe.skipIf(!haveChromium)("GET /api/docs in headless Chromium", () => {
  let dir: string;
  let running: StrongroomServer;
  let browser: Browser;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "strongroom-docs-"));
    running = await createStrongroomServer({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir }, { logger: silentLogger });
    // Root in a container has no user namespace for Chromium's sandbox.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("renders the secrets operations from the OpenAPI document, loading nothing from another origin", async () => {
    const page = await browser.newPage();
    // Swagger UI works the whole document through on the page's main thread: slow on a busy machine.
    page.setDefaultTimeout(90_000);
    const foreign: string[] = [];
    const failed: string[] = [];
    const problems: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(running.url) && !request.url().startsWith("data:")) foreign.push(request.url());
    });
    page.on("requestfailed", (request) => failed.push(request.url()));
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });

    const response = await page.goto(`${running.url}/api/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'self'");
    // The page lists the document's areas (one tag each); opening "secrets" lists its operations
    // with method, path and summary, and opening one shows its parameters.
    const secretsTag = page.locator(".opblock-tag", { hasText: /^secrets/ }).first();
    await secretsTag.waitFor();
    expect(await page.locator("#swagger-ui").innerText()).toContain("Strongroom API");
    expect(await page.locator(".opblock-tag").count()).toBeGreaterThan(20);
    await secretsTag.click();
    const listSecrets = page.locator(".opblock-get", { has: page.locator('[data-path="/api/v4/secrets"]') });
    await listSecrets.waitFor();
    expect(await listSecrets.innerText()).toMatch(/^GET\s*\/api\/v4\/secrets\s*List the secrets of a folder/);
    const operations = await page.locator(".opblock").allInnerTexts();
    expect(operations.some((text) => /^POST\s*\/api\/v4\/secrets\/\{secretName\}/.test(text))).toBe(true);
    expect(operations.some((text) => /^DELETE\s*\/api\/v4\/secrets\/\{secretName\}/.test(text))).toBe(true);
    await listSecrets.locator(".opblock-summary-control").click();
    await listSecrets.getByText("projectId").first().waitFor();

    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 240_000);

  it("serves only the viewer's own files under /api/docs/assets", async () => {
    expect((await fetch(`${running.url}/api/docs/assets/swagger-ui-bundle.js`)).headers.get("content-type")).toMatch(/^text\/javascript/);
    expect((await fetch(`${running.url}/api/docs/assets/package.json`)).status).toBe(404);
    expect((await fetch(`${running.url}/api/docs/assets/..%2Fpackage.json`)).status).toBe(404);
  });
});
