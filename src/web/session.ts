import { parseCookie } from 'cookie';
import type { CookieOptions, Request, RequestHandler, Response, Router } from 'express';
import { consumeLoginToken, endSession, findSession, type OperatorSession } from '../core/auth/sessions.js';
import type { Ctx } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { loginFailedPage, loginThrottledPage } from './pages.js';
import { sendApiError, sendJson } from './reply.js';
import { loginLimiter } from './security.js';

/** Where the dashboard lives on the server's port. */
export const APP_PREFIX = '/app';
export const SESSION_COOKIE = 'outreach_session';

/**
 * The session cookie is an opaque random token the server looks up by digest, so it needs no
 * signature: `cookie` parses the header and Express's `res.cookie` writes it.
 */
export const sessionToken = (req: Request): string | undefined => parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];

const cookieOptions = (req: Request): CookieOptions => ({ path: APP_PREFIX, httpOnly: true, sameSite: 'strict', secure: req.secure });

/** 401 without a session; `hint` is the command that prints a login link (see WebOptions.loginHint). */
const unauthorized = (hint: string) =>
  new ApiError('unauthorized', `No dashboard session. Get a login link with \`${hint}\` on the server machine and open it.`, { loginCommand: hint });

/** The session of a request that passed `requireSession`. */
export const sessionOf = (res: Response): OperatorSession => (res.locals as { session: OperatorSession }).session;

/** Every /app/api route needs the session; without one it answers 401 and nothing else. */
export const requireSession =
  (ctx: Ctx, hint: string): RequestHandler =>
  (req, res, next) => {
    const session = findSession(ctx, sessionToken(req));
    if (!session) return sendApiError(res, unauthorized(hint));
    (res.locals as { session?: OperatorSession }).session = session;
    next();
  };

/**
 * `GET /app/login?token=…` turns a one-time link into the session cookie and leads to /app/;
 * a refused link is a page that says what to run, and an address that keeps presenting bad
 * links is throttled. `POST /app/api/logout` ends the session.
 */
export function mountSession(router: Router, ctx: Ctx, hint: string): void {
  router.get(
    '/login',
    loginLimiter((seconds) => loginThrottledPage(seconds, hint)),
    (req, res) => {
      res.set('Cache-Control', 'no-store');
      // Link previewers probe with HEAD; only a real GET spends the one-time token.
      if (req.method === 'HEAD') {
        res.status(200).type('html').end();
        return;
      }
      const token = typeof req.query.token === 'string' ? req.query.token : undefined;
      const outcome = consumeLoginToken(ctx, token);
      if (!outcome.ok) {
        res.status(401).type('html').send(loginFailedPage(outcome.reason, hint));
        return;
      }
      ctx.log.info({ sessionId: outcome.sessionId }, 'dashboard login');
      const maxAge = outcome.expiresAt - ctx.clock.now();
      res.cookie(SESSION_COOKIE, outcome.session, { ...cookieOptions(req), maxAge }).redirect(303, `${APP_PREFIX}/`);
    },
  );

  router.use('/api', requireSession(ctx, hint));

  router.post('/api/logout', (req, res) => {
    endSession(ctx, sessionToken(req));
    res.cookie(SESSION_COOKIE, '', { ...cookieOptions(req), maxAge: 0 });
    sendJson(res, 200, { ok: true });
  });
}
