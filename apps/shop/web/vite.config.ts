/**
 * Builds the browser app into `dist/` (served by the shop server, `src/server/serve-web.ts`).
 * Workspace packages resolve to their TypeScript sources (the `overlap-source` condition), so the
 * app is built against `overlap-runtime/client` as it is in the repository, never a stale `dist/`.
 * `vite` (dev) proxies the API to a shop server on port 3000 (`npm start`).
 */

import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig } from "vite";

const api = "http://localhost:3000";

export default defineConfig({
  plugins: [react()],
  resolve: {
    conditions: ["overlap-source", ...defaultClientConditions],
    dedupe: ["react", "react-dom"],
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { "/api": api, "/healthz": api },
  },
  preview: {
    proxy: { "/api": api, "/healthz": api },
  },
});
