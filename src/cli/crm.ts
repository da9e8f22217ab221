import { resolveSettings, UsageError } from '../config.js';
import { crmStatus, listCrmSyncLog, SYNC_DIRECTIONS, SYNC_OUTCOMES, type CrmSyncEntry } from '../core/crm/log.js';
import { crmConnection } from '../core/crm/read.js';
import { asUsageError, pageLimit, parse, stdout, table, withDbAsync, workspaceSecret, type Options } from './shared.js';

export const CRM_USAGE = `  crm status [--json] [--db PATH] [--config FILE]
                        The CRM connection (which CRM, the token's variable and whether it is set,
                        never the token), the pull's last poll and the outbox's backlog.
  crm log [--direction push|pull] [--outcome O] [--lead ID] [--limit N] [--cursor C] [--json] [--db PATH]
                        The sync log, newest first: each push and pull with its outcome
                        (${SYNC_OUTCOMES.join(', ')}). --limit (1-200, default 50) pages;
                        the next page's --cursor is printed last.`;

const SUBCOMMANDS = ['status', 'log'];
const COMMON = { db: { type: 'string' }, json: { type: 'boolean' } } satisfies Options;
const NAMES = { direction: '--direction', outcome: '--outcome', leadId: '--lead', limit: '--limit', cursor: '--cursor' };

function oneOf<T extends string>(flag: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw new UsageError(`${flag}: "${raw}" must be one of ${allowed.join(', ')}`);
  return raw as T;
}

/** `outreach crm status|log`: the CRM sync as the operator reads it, from the core verbs. */
export async function crm(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'status') {
    const { values } = parse(rest, { ...COMMON, config: { type: 'string' } });
    const settings = resolveSettings({ db: values.db, config: values.config });
    const connection = crmConnection(settings.config.crm);
    return withDbAsync(
      { db: values.db, config: values.config },
      async (ctx) => {
        const status = crmStatus(ctx);
        if (values.json) return stdout(JSON.stringify({ connection, ...status }, null, 2));
        if (connection.crm === null) stdout('CRM: not configured (add a crm.hubspot section with tokenEnv to the config file; see docs/crm.md)');
        else
          stdout(
            `CRM: ${connection.crm}, token from ${connection.tokenEnv} (${connection.tokenSet ? 'set' : 'NOT SET in this shell: a server started without it holds pushes in the outbox'})`,
          );
        const p = status.pull;
        stdout(
          `Pull: ${p.intervalSeconds === null ? 'off' : `every ${p.intervalSeconds} s`}, last poll ${p.lastPolledAt ?? 'never'}${p.lastError ? `, last error: ${p.lastError}` : ''}`,
        );
        const b = status.backlog;
        table([
          ['OUTBOX', 'PENDING', 'DUE', 'IN FLIGHT', 'SUCCEEDED', 'FAILED', 'OLDEST PENDING'],
          ['pushes', String(b.pending), String(b.due), String(b.inFlight), String(b.succeeded), String(b.failed), b.oldestPendingAt ?? '-'],
        ]);
      },
      { mustExist: true },
    );
  }
  if (sub === 'log') {
    const { values } = parse(rest, {
      ...COMMON,
      direction: { type: 'string' },
      outcome: { type: 'string' },
      lead: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
    });
    const direction = oneOf('--direction', values.direction, SYNC_DIRECTIONS);
    const outcome = oneOf('--outcome', values.outcome, SYNC_OUTCOMES);
    const limit = pageLimit(values.limit, 200);
    return withDbAsync(
      values.db,
      async (ctx) => {
        const secret = workspaceSecret(ctx);
        let page: { entries: CrmSyncEntry[]; nextCursor: string | null };
        try {
          page = listCrmSyncLog(ctx, secret, {
            limit,
            ...(direction ? { direction } : {}),
            ...(outcome ? { outcome } : {}),
            ...(values.lead ? { leadId: values.lead } : {}),
            ...(values.cursor ? { cursor: values.cursor } : {}),
          });
        } catch (err) {
          throw asUsageError(err, NAMES);
        }
        if (values.json) return stdout(JSON.stringify(page, null, 2));
        if (page.entries.length === 0) return stdout('No sync log entry matches.');
        table([
          ['AT', 'DIRECTION', 'KIND', 'OUTCOME', 'LEAD', 'CONTACT', 'DETAIL'],
          ...page.entries.map((e) => [e.at, e.direction, e.kind, e.outcome, e.leadId ?? '-', e.contactId ?? '-', e.detail.replace(/\s+/g, ' ')]),
        ]);
        if (page.nextCursor) stdout(`More: --cursor ${page.nextCursor}`);
      },
      { mustExist: true },
    );
  }
  throw new UsageError(sub ? `crm: unknown subcommand "${sub}" (${SUBCOMMANDS.join(', ')})` : `crm: a subcommand is required (${SUBCOMMANDS.join(', ')})`);
}
