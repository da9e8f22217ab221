import type { Request, Response, Router } from 'express';
import { findSession } from '../core/auth/sessions.js';
import type { Ctx } from '../core/context.js';
import { listenToChanges, type LiveChange } from '../core/live/feed.js';
import { sessionToken } from './session.js';

/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/**
 * `GET /app/api/events`: the dashboard's live updates, as server-sent events, from core's change
 * feed. Each event (`change`) carries the batch of changes the feed coalesced (at most one per
 * 250 ms): which campaign, which draft queue, which lead's conversation, or `workspace` when
 * another process wrote and anything may have changed. The page then reads again what it shows;
 * the event carries no data of its own. The route sits behind the session like every
 * /app/api route, and the session is checked again before each event: a logged-out or expired
 * session's stream ends. `no-transform` keeps the compression middleware from buffering it.
 */
export function mountEvents(router: Router, ctx: Ctx): void {
  router.get('/api/events', (req: Request, res: Response) => {
    const token = sessionToken(req);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Tell the browser how long to wait before reconnecting, and that the stream is open.
    res.write('retry: 3000\nevent: ready\ndata: {}\n\n');
    // Each keepalive asks for the session again too: one ended by another process (the CLI's
    // `login --revoke-all`) or expired ends within a keepalive, not at the next change.
    const keepalive = setInterval(() => (findSession(ctx, token) ? res.write(': keepalive\n\n') : res.end()), KEEPALIVE_MS);
    keepalive.unref();
    const stop = listenToChanges(ctx, (changes: readonly LiveChange[]) => {
      if (!findSession(ctx, token)) {
        res.end();
        return;
      }
      // A credential's lost access is for the streams that hold one; the page has nothing to reload.
      const shown = changes.filter((c) => c.resource !== 'access');
      if (shown.length > 0) res.write(`event: change\ndata: ${JSON.stringify({ changes: shown })}\n\n`);
    });
    res.on('close', () => {
      clearInterval(keepalive);
      stop();
    });
  });
}
