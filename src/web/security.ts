import type { Request, RequestHandler, Response } from 'express';

/**
 * The dashboard's policy: everything from our own origin, no inline script, no framing. The
 * build ships no inline script or style; charts set styles through the DOM (CSSOM), which
 * `style-src` does not govern.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Every /app response carries these, errors and the login page included. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  // The front door answers every path with `Access-Control-Allow-Origin: *` for API callers;
  // the dashboard is same-origin only, so no other site may read its answers.
  res.removeHeader('Access-Control-Allow-Origin');
  res.removeHeader('Access-Control-Expose-Headers');
  next();
};

/** The origin this request was addressed to, as a browser names it (https behind a trusted proxy). */
export const ownOrigin = (req: Request): string => `${req.protocol}://${req.host}`;

/**
 * Whether a state-changing request comes from the dashboard itself: its `Origin` is ours, or the
 * browser vouches `Sec-Fetch-Site: same-origin`. A request with neither is refused, so a form or
 * script on another site cannot act with the operator's cookie (SameSite=Strict is the first
 * line; this holds also for same-site neighbours on other ports).
 */
export function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  if (origin !== undefined && origin !== 'null') return origin === ownOrigin(req);
  return req.get('sec-fetch-site') === 'same-origin';
}

export function refuseCrossOrigin(res: Response): void {
  res
    .status(403)
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
