import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit } from 'express-rate-limit';
import { clientAddress } from '../http/request.js';
import helmet from 'helmet';

/**
 * The dashboard's policy: everything from our own origin, no inline script, no framing. The
 * build ships no inline script or style; charts set styles through the DOM (CSSOM), which
 * `style-src` does not govern.
 */
const CSP_DIRECTIVES = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/** The Content-Security-Policy header as helmet writes it (directives joined by `;`). */
export const DASHBOARD_CSP = Object.entries(CSP_DIRECTIVES)
  .map(([name, values]) => `${name} ${values.join(' ')}`)
  .join(';');

/** A year: long enough for browsers to keep to https, with no `includeSubDomains` (the operator's other hosts are not ours to pin). */
const HSTS_MAX_AGE_SECONDS = 365 * 24 * 3600;

const headers = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: CSP_DIRECTIVES },
  referrerPolicy: { policy: 'no-referrer' },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: { policy: 'same-origin' },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  // Only behind https (below): sent over plain http it would tell nothing, and a browser ignores it there.
  strictTransportSecurity: false,
});
const hsts = helmet.strictTransportSecurity({ maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: false });

/** Every /app response carries these, errors and the login page included. */
export const securityHeaders: RequestHandler = (req, res, next) => {
  // The front door answers every path with `Access-Control-Allow-Origin: *` for API callers;
  // the dashboard is same-origin only, so no other site may read its answers.
  res.removeHeader('Access-Control-Allow-Origin');
  res.removeHeader('Access-Control-Expose-Headers');
  headers(req, res, (err?: unknown) => {
    if (err) return next(err);
    if (req.secure) return hsts(req, res, next);
    next();
  });
};

/**
 * The origins a dashboard write may come from: the configured public address, and the origin
 * the request itself names (scheme from a trusted proxy on loopback, the `Host` header). A
 * forwarded host (`X-Forwarded-Host`) never counts: any client of a loopback proxy could set it.
 */
export function allowedOrigins(req: Request, publicOrigin: string | undefined): string[] {
  const own = `${req.protocol}://${req.headers.host ?? ''}`;
  return publicOrigin !== undefined && publicOrigin !== own ? [own, publicOrigin] : [own];
}

/**
 * Whether a state-changing request comes from the dashboard itself: its `Origin` is one of
 * ours, or, without `Origin`, the browser vouches `Sec-Fetch-Site: same-origin`. Anything else
 * is refused, so a form or script on another site cannot act with the operator's cookie
 * (SameSite=Strict is the first line; this holds also for same-site neighbours on other ports).
 */
export function sameOrigin(req: Request, publicOrigin: string | undefined): boolean {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== 'null') return allowedOrigins(req, publicOrigin).includes(origin);
  return req.get('sec-fetch-site') === 'same-origin';
}

/** Non-GET requests must pass `sameOrigin`; see refuseCrossOrigin for the answer otherwise. */
export const requireSameOrigin =
  (publicOrigin: string | undefined): RequestHandler =>
  (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (!sameOrigin(req, publicOrigin)) return refuseCrossOrigin(res);
    next();
  };

/**
 * 403 `forbidden`: the dashboard's own code, outside the API's closed set, since no API code
 * means "wrong origin" (`unauthorized` would send the page to its login screen).
 */
export function refuseCrossOrigin(res: Response): void {
  res
    .status(403)
    .set('Cache-Control', 'no-store')
    .type('application/json')
    .send(
      JSON.stringify({
        error: {
          code: 'forbidden',
          message: 'Cross-origin request refused: dashboard writes must come from the dashboard page on this server.',
          details: {},
        },
      }),
    );
}

/** Failed login links per client address and window before the address gets 429. */
export const LOGIN_FAILURES_ALLOWED = 10;
export const LOGIN_FAILURE_WINDOW_MS = 15 * 60_000;

/**
 * Counts refused login links (any 4xx) per client address; after LOGIN_FAILURES_ALLOWED in the
 * window, every login request from that address is 429 with `Retry-After` until the window
 * ends, a valid link included (it stays unspent). Behind a proxy on loopback the address is
 * the forwarded client's when that proxy is configured (`trustProxy`), and the connection's
 * otherwise, whatever X-Forwarded-For a request claims. One limiter per server: the counts live in memory.
 */
export function loginLimiter(page: (retryAfterSeconds: number) => string): RequestHandler {
  return rateLimit({
    windowMs: LOGIN_FAILURE_WINDOW_MS,
    limit: LOGIN_FAILURES_ALLOWED,
    skipSuccessfulRequests: true,
    // The connection's peer, or the client a configured proxy names (never a header anyone can send).
    keyGenerator: (req) => ipKeyGenerator(clientAddress(req) ?? 'unknown'),
    // A link previewer's HEAD spends nothing and proves nothing.
    skip: (req) => req.method === 'HEAD',
    standardHeaders: false,
    legacyHeaders: false,
    handler: (req, res) => {
      const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const seconds = Math.max(1, Math.ceil(((resetTime?.getTime() ?? Date.now() + LOGIN_FAILURE_WINDOW_MS) - Date.now()) / 1000));
      res.status(429).set('Retry-After', String(seconds)).set('Cache-Control', 'no-store').type('html').send(page(seconds));
    },
  });
}
