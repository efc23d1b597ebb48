import { readFile } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DOCS_PATH, OPENAPI_PATH } from "./openapi.js";

/** The API reference page (DOCS_PATH): Swagger UI over the OpenAPI document, every file served from here. */
const ASSETS = `${DOCS_PATH}/assets/`;

/**
 * The page's files. The viewer is `swagger-ui-dist` (Swagger's own prebuilt bundle, kept by the
 * OpenAPI tooling's maintainers) read from node_modules: nothing is fetched from a CDN, so the
 * page works offline and behind a firewall, and the CSP below forbids any other origin.
 */
const VIEWER_FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
  "favicon-16x16.png": "image/png",
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Strongroom API reference</title>
<link rel="icon" type="image/png" href="${ASSETS}favicon-32x32.png" sizes="32x32">
<link rel="stylesheet" href="${ASSETS}swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${ASSETS}swagger-ui-bundle.js"></script>
<script src="${ASSETS}init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator.
const INIT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(OPENAPI_PATH)},
  dom_id: "#swagger-ui",
  deepLinking: true,
  docExpansion: "none",
  defaultModelsExpandDepth: -1,
  validatorUrl: null,
});
`;

/** Scripts and styles from this origin only; Swagger UI sets inline styles and data: images. */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;

/** The route template a docs path is logged under, or undefined when the path is not the page's. */
export function docsRouteOf(path: string): string | undefined {
  if (path === DOCS_PATH || path === `${DOCS_PATH}/`) return DOCS_PATH;
  if (path.startsWith(ASSETS)) return `${ASSETS}{file}`;
  return undefined;
}

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

const loaded = new Map<string, Promise<Asset | undefined>>();
let viewerDir: string | undefined;

/** A file of the page by name (read once, then kept), or undefined for any other name. */
function asset(name: string): Promise<Asset | undefined> {
  let found = loaded.get(name);
  if (!found) {
    found = loadAsset(name);
    loaded.set(name, found);
    // A failed read is tried again next time rather than kept.
    found.catch(() => loaded.delete(name));
  }
  return found;
}

async function loadAsset(name: string): Promise<Asset | undefined> {
  if (name === "") return { type: "text/html; charset=utf-8", body: Buffer.from(PAGE) };
  if (name === "init.js") return { type: "text/javascript; charset=utf-8", body: Buffer.from(INIT) };
  const type = Object.hasOwn(VIEWER_FILES, name) ? VIEWER_FILES[name] : undefined;
  if (!type) return undefined;
  viewerDir ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return { type, body: await readFile(join(viewerDir, name)) };
}

/** Answers a GET of the page or one of its files; false when `path` names nothing of it. */
export async function sendDocs(res: ServerResponse, path: string): Promise<boolean> {
  const name = path.startsWith(ASSETS) ? path.slice(ASSETS.length) : "";
  const found = await asset(name);
  if (!found || res.headersSent || res.destroyed) return false;
  res.writeHead(200, {
    ...PAGE_HEADERS,
    "content-type": found.type,
    "content-length": String(found.body.length),
    // The viewer's files change only with the package; the page itself is tiny.
    "cache-control": name === "" ? "no-cache" : "public, max-age=3600",
  });
  res.end(found.body);
  return true;
}
