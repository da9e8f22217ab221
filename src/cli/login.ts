import { createLoginToken, revokeAllSessions } from '../core/auth/sessions.js';
import type { Ctx } from '../core/context.js';
import { dirname } from 'node:path';
import { CLI_SCRIPT, cliCommand, DEFAULTS, isDefaultDb, parsePublicUrl, resolveSettings, shellWord, UsageError, type Settings } from '../config.js';
import { APP_PREFIX } from '../web/mount.js';
import { asOwner, parse, stdout, withDb } from './shared.js';
import { activeMember, ensureOwner } from '../core/members/members.js';

export const LOGIN_USAGE = `  login [--member ID] [--base URL] [--db PATH] [--config FILE] [--revoke-all]
                        Print a one-time dashboard login link (valid 15 minutes) as the last line,
                        for the member ID (see \`outreach members list\`; default: the owner, made
                        on first use if the workspace has no member yet).
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

/** `base/app/login?token=…` with a freshly minted one-time token for a member (the owner by default). */
export function newLoginLink(ctx: Ctx, base: string, memberId?: string): string {
  const { token } = createLoginToken(ctx, memberId);
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
  const { values } = parse(args, {
    base: { type: 'string' },
    db: { type: 'string' },
    config: { type: 'string' },
    'revoke-all': { type: 'boolean' },
    member: { type: 'string' },
  });
  const settings = resolveSettings({ db: values.db, config: values.config });
  const base = values.base !== undefined ? parsePublicUrl(values.base, '--base') : serverBase(settings, settings.port);
  withDb(
    { db: values.db, config: values.config },
    (ctx) => {
      if (values['revoke-all']) {
        const { sessions } = asOwner(ctx, { action: 'sessions.revoke_all', targets: [], summary: 'Ended every dashboard session' }, () =>
          revokeAllSessions(ctx),
        );
        stdout(`Ended ${sessions} dashboard session${sessions === 1 ? '' : 's'} and voided every unused login link.`);
      }
      const member = values.member === undefined ? ensureOwner(ctx) : activeMember(ctx, values.member);
      if (!member) throw new UsageError(`--member: no active member "${values.member}" (see \`npx outreach members list\`)`);
      const link = asOwner(ctx, { action: 'login.link', targets: [member.id], summary: `Login link for ${member.name} (${member.role})` }, () =>
        newLoginLink(ctx, base, member.id),
      );
      stdout(`Open this link in your browser within 15 minutes. It works once, and signs in ${member.name} (${member.role}):`);
      stdout(link);
    },
    { mustExist: true },
  );
}
