// Serves the dashboard (dashboard/dist, built by its prepare script) under /app/: hashed assets as
// files, any other /app/ path as index.html (the page routes in the browser). Mounted as middleware,
// not as routes: these are files of a web page, not operations of the API (openapi.json).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler } from 'express';
import { DependencyUnavailableError } from '../../lib/workflow-safe/errors.ts';
import { sendProblem } from './problem.ts';

export const DEFAULT_DASHBOARD_DIR = fileURLToPath(new URL('../../dashboard/dist', import.meta.url));

/**
 * Only the page's own files: no inline script or style (the build writes none), no other origin.
 * The page talks to the API on its own origin, so connect-src 'self' is all it needs.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function serveDashboard(options: { dir?: string } = {}): RequestHandler {
  const dir = options.dir ?? DEFAULT_DASHBOARD_DIR;
  const indexFile = path.join(dir, 'index.html');
  // Vite names assets by their content hash: a name never changes content, so browsers may keep them.
  const files = express.static(dir, {
    index: false,
    redirect: false,
    fallthrough: true,
    setHeaders(res, filePath) {
      const hashed = filePath.startsWith(path.join(dir, 'assets') + path.sep);
      res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // /app without its slash: the page's relative asset URLs need the folder.
    if (req.baseUrl === '/app' && req.path === '/' && !req.originalUrl.split('?')[0]!.endsWith('/')) {
      return res.redirect(301, '/app/');
    }
    res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // Checked on every request: building the page while the API runs makes it appear without a restart.
    if (!fs.existsSync(indexFile)) {
      const error = new DependencyUnavailableError(
        'The dashboard is not built: run `npm run build --workspace dashboard` (npm ci and npm install build it), then reload.',
      );
      return sendProblem(res, error, req.traceId);
    }
    files(req, res, () => {
      // A missing asset is a 404, never the page: a script URL answered with HTML would hide the fault.
      if (req.path.startsWith('/assets/')) return next();
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(indexFile);
    });
  };
}
