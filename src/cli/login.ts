import { createLoginToken, revokeAllSessions } from '../core/auth/sessions.js';
import type { Ctx } from '../core/context.js';
import { dirname } from 'node:path';
import { CLI_SCRIPT, cliCommand, DEFAULTS, isDefaultDb, parsePublicUrl, resolveSettings, shellWord, type Settings } from '../config.js';
import { APP_PREFIX } from '../web/mount.js';
import { parse, stdout, withDb } from './shared.js';

export const LOGIN_USAGE = `  login [--base URL] [--db PATH] [--config FILE] [--revoke-all]
                        Print a one-time dashboard login link (valid 15 minutes) as the last line.
                        --base: the server's address as your browser reaches it (default:
                        OUTREACH_PUBLIC_URL or publicUrl in the config, else HOST/PORT, e.g.
                        http://127.0.0.1:3000). --revoke-all ends every dashboard session and
                        unused link first.`;

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

/** The address a browser uses for a running server: the configured public one, else the bind address. */
export const serverBase = (settings: Pick<Settings, 'publicUrl' | 'host'>, port: number): string => settings.publicUrl ?? browsableBase(settings.host, port);

/** The package root: where `npx outreach` runs this installation. */
const PACKAGE_ROOT = dirname(dirname(CLI_SCRIPT));

/**
 * `outreach login` as the operator at the server's console can paste it: `npx outreach login`
 * for the package folder's default database (`npm start`), else a command with `--db` that
 * works from any folder; `--base` unless the server is at the default address.
 */
export function loginCommand(settings: Pick<Settings, 'dbPath'>, base: string, cwd = process.cwd()): string {
  const simple = cwd === PACKAGE_ROOT && isDefaultDb(settings);
  const command = simple ? 'npx outreach login' : `${cliCommand()} login --db ${shellWord(settings.dbPath)}`;
  const defaultBase = browsableBase(DEFAULTS.host, DEFAULTS.port);
  return base === defaultBase ? command : `${command} --base ${shellWord(base)}`;
}

export function login(args: string[]): void {
  const { values } = parse(args, { base: { type: 'string' }, db: { type: 'string' }, config: { type: 'string' }, 'revoke-all': { type: 'boolean' } });
  const settings = resolveSettings({ db: values.db, config: values.config });
  const base = values.base !== undefined ? parsePublicUrl(values.base, '--base') : serverBase(settings, settings.port);
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
