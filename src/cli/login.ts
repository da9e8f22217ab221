import { createLoginToken, revokeAllSessions } from '../core/auth/sessions.js';
import type { Ctx } from '../core/context.js';
import { resolveSettings, UsageError } from '../config.js';
import { APP_PREFIX } from '../web/mount.js';
import { parse, stdout, withDb } from './shared.js';

export const LOGIN_USAGE = `  login [--base URL] [--db PATH] [--config FILE] [--revoke-all]
                        Print a one-time dashboard login link (valid 15 minutes) as the last line.
                        --base: the server's address as your browser reaches it (default from
                        HOST/PORT or the config, e.g. http://127.0.0.1:3000). --revoke-all ends
                        every dashboard session and unused link first.`;

/** A bind address as a browser would reach it: a wildcard bind is reached on loopback. */
function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** `http://host:port` of a server, as a browser reaches it. */
export const browsableBase = (host: string, port: number): string => `http://${browsableHost(host)}:${port}`;

/** `base/app/login?token=…` with a freshly minted one-time token. */
export function newLoginLink(ctx: Ctx, base: string): string {
  const { token } = createLoginToken(ctx);
  return `${base.replace(/\/+$/, '')}${APP_PREFIX}/login?token=${token}`;
}

function parseBase(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--base: "${raw}" is not a URL (e.g. http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base: "${raw}" must be an http or https URL`);
  if (url.username || url.password || url.search || url.hash)
    throw new UsageError(`--base: "${raw}" must be a plain origin with an optional path, no credentials, query or fragment`);
  return url.href.replace(/\/+$/, '');
}

export function login(args: string[]): void {
  const { values } = parse(args, { base: { type: 'string' }, db: { type: 'string' }, config: { type: 'string' }, 'revoke-all': { type: 'boolean' } });
  const settings = resolveSettings({ db: values.db, config: values.config });
  const base = values.base !== undefined ? parseBase(values.base) : browsableBase(settings.host, settings.port);
  withDb(
    { db: values.db, config: values.config },
    (ctx) => {
      if (values['revoke-all']) {
        const { sessions } = revokeAllSessions(ctx);
        stdout(`Ended ${sessions} dashboard session${sessions === 1 ? '' : 's'} and voided every unused login link.`);
      }
      stdout('Open this link in your browser within 15 minutes. It works once:');
      stdout(newLoginLink(ctx, base));
    },
    { mustExist: true },
  );
}
