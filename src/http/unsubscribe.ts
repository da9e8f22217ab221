import type { Express } from 'express';
import type { Ctx } from '../core/context.js';
import { sendOfToken } from '../core/email/send.js';
import { unsubscribe } from '../core/email/unsubscribe.js';
import { readRawBody } from './body.js';
import { escapeHtml } from './html.js';

/** The path every email's unsubscribe link and List-Unsubscribe header point at. */
export const UNSUBSCRIBE_PATH = '/unsubscribe/:token';

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>` +
  '<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}button{font:inherit;padding:.5rem 1rem;background:#1d4ed8;color:#fff;border:0;border-radius:.375rem;cursor:pointer}</style>' +
  `</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

/**
 * The public one-click unsubscribe (RFC 8058), with no login: the token in the path is signed
 * by this server and names the email. A mail client's one-click POST (`List-Unsubscribe=One-Click`)
 * and the page's button both unsubscribe; GET only shows the page with the button, since mail
 * scanners follow links and must not unsubscribe anyone.
 */
export function mountUnsubscribe(app: Express, ctx: Ctx): void {
  app.get(UNSUBSCRIBE_PATH, readRawBody, (req, res) => {
    const token = String(req.params.token);
    res.set('Cache-Control', 'no-store');
    if (sendOfToken(ctx, token) === null) {
      res.status(404).type('html').send(page('Link not recognised', '<p>This unsubscribe link is not valid. Reply to the email and ask to be removed.</p>'));
      return;
    }
    res
      .status(200)
      .type('html')
      .send(
        page(
          'Unsubscribe',
          `<p>Stop all emails from this sender to your address?</p><form method="post" action="${escapeHtml(req.originalUrl)}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
        ),
      );
  });
  app.post(UNSUBSCRIBE_PATH, readRawBody, (req, res) => {
    const result = unsubscribe(ctx, String(req.params.token));
    res.set('Cache-Control', 'no-store');
    if (!result.ok) {
      res.status(404).type('html').send(page('Link not recognised', '<p>This unsubscribe link is not valid. Reply to the email and ask to be removed.</p>'));
      return;
    }
    res.status(200).type('html').send(page('Unsubscribed', '<p>You will receive no more emails from this sender.</p>'));
  });
}
