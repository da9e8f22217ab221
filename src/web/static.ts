import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type RequestHandler, type Response, type Router } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { NOT_BUILT_TEXT } from './pages.js';

/** The built SPA (`npm run build`), from both `src/web` (tests) and `dist/web` (built). */
export const DEFAULT_UI_DIR = fileURLToPath(new URL('../../dist/ui/dashboard', import.meta.url));

/** The build's identity: index.html's modification time, or null when there is no build. */
function buildStamp(uiDir: string): number | null {
  try {
    return statSync(join(uiDir, 'index.html')).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * The hashed assets, long-cached, each sent as the build's brotli or gzip file beside it when
 * the client accepts one (`Content-Encoding`, `Vary: Accept-Encoding`), else as it is. The
 * static middleware learns which compressed files exist when it is made, so it is made again
 * whenever a new build lands: a build made while the server runs is served at once.
 */
function assetsHandler(uiDir: string): RequestHandler {
  let current: { stamp: number; handler: RequestHandler } | null = null;
  return (req, res, next) => {
    const stamp = buildStamp(uiDir);
    if (stamp === null) return notBuilt(res);
    if (current?.stamp !== stamp) {
      const handler = expressStaticGzip(join(uiDir, 'assets'), {
        enableBrotli: true,
        orderPreference: ['br', 'gzip'],
        index: false,
        serveStatic: { index: false, immutable: true, maxAge: '365d', fallthrough: false, redirect: false },
      }) as RequestHandler;
      current = { stamp, handler };
    }
    current.handler(req, res, next);
  };
}

/**
 * The built SPA under the mount: `/assets/*` (see assetsHandler), other files of the build
 * (revalidated), and `index.html` for every other GET path, since routing happens in the page.
 */
export function mountSpa(router: Router, uiDir: string): void {
  router.use('/assets', assetsHandler(uiDir));
  router.use(express.static(uiDir, { index: false, redirect: false, maxAge: 0 }));
  router.get(/.*/, (_req, res) => {
    if (buildStamp(uiDir) === null) return notBuilt(res);
    // Client-side routing: every page path is the SPA's entry; it must be revalidated, its assets need not.
    res.set('Cache-Control', 'no-cache').sendFile(join(uiDir, 'index.html'));
  });
}

function notBuilt(res: Response): void {
  res.status(503).set('Cache-Control', 'no-store').type('text/plain').send(NOT_BUILT_TEXT);
}
