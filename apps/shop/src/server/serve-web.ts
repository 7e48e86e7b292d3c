/**
 * Serves the browser app that Vite builds into `apps/shop/web/dist`: the app's pages (`/` and
 * `/merchant`, both answered with `index.html`: the app routes itself), its hashed assets under
 * `/assets/` (cached for a year, immutable: a new build has new names) and the few unhashed files at
 * the top of `dist/` (favicon). `index.html` is `no-cache` (revalidated on every load, so a deploy
 * is seen at once) and carries a strict Content-Security-Policy: the app loads nothing but its own
 * files and talks only to this origin. Everything else (the API, unknown paths) is left to the
 * routes after it, and so is every path when no build is there (the server still answers the API).
 */

import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { extname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { MiddlewareHandler } from "hono";

/** Where `vite build` writes the app (from `src/server` and from `dist/server` alike). */
export const WEB_DIST_DIR = fileURLToPath(new URL("../../web/dist", import.meta.url));

/** The app's pages: each answers `index.html`. */
export const SPA_ROUTES: readonly string[] = ["/", "/index.html", "/merchant", "/merchant/"];

/** Hashed build output: safe to cache forever. */
const ASSETS_PREFIX = "/assets/";

const IMMUTABLE = "public, max-age=31536000, immutable";
const REVALIDATE = "no-cache";
const SHORT = "public, max-age=3600";

/** The page's policy: own scripts, styles, images and fonts only; API calls to this origin. */
export const WEB_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".ttf": "font/ttf",
};

/** The content type of a file name (`application/octet-stream` when unknown). */
export function contentTypeOf(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
}

/** Options of {@link serveWeb}. */
export interface ServeWebOptions {
  /** The built app; default {@link WEB_DIST_DIR}. */
  dir?: string;
}

/** A file read from the build, kept while its size and time stay the same. */
interface CachedFile {
  body: Uint8Array;
  etag: string;
  mtimeMs: number;
  size: number;
}

/** The app's files, answered as web-standard responses. */
export interface WebAssets {
  /** The directory served. */
  readonly dir: string;
  /**
   * The answer to `request` when it asks for one of the app's pages or files (GET or HEAD);
   * `undefined` for anything else, and for every request when the app is not built.
   */
  respond(request: Request): Promise<Response | undefined>;
}

/** Serves the files of `dir` (see the module comment for what is served and how it is cached). */
export function webAssets(dir: string = WEB_DIST_DIR): WebAssets {
  const root = resolve(dir);
  const cache = new Map<string, CachedFile>();

  const load = async (file: string): Promise<CachedFile | undefined> => {
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(file);
    } catch {
      return undefined;
    }
    if (!info.isFile()) return undefined;
    const cached = cache.get(file);
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached;
    let body: Uint8Array;
    try {
      body = new Uint8Array(await readFile(file));
    } catch {
      return undefined;
    }
    const hash = createHash("sha256").update(body).digest("base64url").slice(0, 27);
    const entry = { body, etag: `"${hash}"`, mtimeMs: info.mtimeMs, size: info.size };
    cache.set(file, entry);
    return entry;
  };

  return {
    dir: root,
    async respond(request) {
      if (request.method !== "GET" && request.method !== "HEAD") return undefined;
      const path = requestPath(request.url);
      if (path === undefined) return undefined;
      let file: string | undefined;
      let cacheControl: string;
      if (SPA_ROUTES.includes(path)) {
        file = resolve(root, "index.html");
        cacheControl = REVALIDATE;
      } else {
        file = fileInside(root, path);
        cacheControl = path.startsWith(ASSETS_PREFIX) ? IMMUTABLE : SHORT;
      }
      if (file === undefined) return undefined;
      const found = await load(file);
      if (!found) return undefined;
      const headers = new Headers({
        "content-type": contentTypeOf(file),
        "cache-control": cacheControl,
        etag: found.etag,
        "x-content-type-options": "nosniff",
      });
      if (file.endsWith(".html")) {
        headers.set("content-security-policy", WEB_CONTENT_SECURITY_POLICY);
        headers.set("referrer-policy", "no-referrer");
      }
      if (matchesEtag(request.headers.get("if-none-match"), found.etag)) {
        return new Response(null, { status: 304, headers });
      }
      headers.set("content-length", String(found.body.byteLength));
      // A copy per response: a consumer that transfers or detaches the buffer must not reach the cache.
      const body = request.method === "HEAD" ? null : found.body.slice();
      return new Response(body, { status: 200, headers });
    },
  };
}

/**
 * The Hono middleware: answers the app's pages and files, passes everything else on. Register it
 * before the routes (it answers `/`).
 */
export function serveWeb(options: ServeWebOptions = {}): MiddlewareHandler {
  const assets = webAssets(options.dir);
  return async (c, next) => {
    const response = await assets.respond(c.req.raw);
    if (response) return response;
    await next();
  };
}

/** The decoded path of `url`, or `undefined` when it cannot be a file of ours. */
function requestPath(url: string): string | undefined {
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(url).pathname);
  } catch {
    return undefined;
  }
  if (pathname.includes("\0") || pathname.includes("\\")) return undefined;
  return pathname;
}

/** The file `path` names inside `root`, or `undefined` when it would leave it or is hidden. */
function fileInside(root: string, path: string): string | undefined {
  const segments = path.split("/").filter((s) => s !== "");
  if (segments.length === 0) return undefined;
  // No parent steps and no dot-files (nothing like .env or .git is ever served).
  if (segments.some((s) => s === ".." || s.startsWith("."))) return undefined;
  const file = resolve(root, ...segments);
  return file.startsWith(root + sep) ? file : undefined;
}

function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, ""))
    .some((t) => t === etag || t === "*");
}
