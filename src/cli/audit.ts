import { UsageError } from '../config.js';
import type { AuditEvent } from '../core/audit/list.js';
import { defuseFormula } from '../core/text.js';
import { listAuditEventsTool } from '../tools/list-audit-events.js';
import { asUsageError, operate, pageLimit, parse, stdout, withDbAsync, type Options } from './shared.js';

export const AUDIT_USAGE = `  audit [--actor ID] [--target ID] [--since ISO] [--until ISO] [--limit N] [--cursor C] [--json|--csv] [--db PATH]
                        Print the audit trail, newest first: when, who (member, key or OAuth
                        client), what, and the ids it touched. --limit (1-100, default 50) pages;
                        the next page's --cursor is printed last. --csv prints every matching event.`;

const FLAGS = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  csv: { type: 'boolean' },
  actor: { type: 'string' },
  target: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
} satisfies Options;

const NAMES = { actorId: '--actor', targetId: '--target', since: '--since', until: '--until', limit: '--limit', cursor: '--cursor' };

type Page = { events: AuditEvent[]; nextCursor: string | null };

/** One CSV cell: quoted, with a leading =, +, - or @ defused so a spreadsheet never runs it. */
const cell = (value: string): string => `"${defuseFormula(value).replace(/"/g, '""')}"`;

export function auditCsvLine(e: AuditEvent): string {
  return [e.at, e.actor.type, e.actor.id, e.actor.name, e.action, e.targetIds.join(' '), e.summary].map(cell).join(',');
}

/** `outreach audit`: list_audit_events through the pipeline, as the owner. */
export async function audit(args: string[]): Promise<void> {
  const { values } = parse(args, FLAGS);
  if (values.json && values.csv) throw new UsageError('--json and --csv: choose one');
  const limit = pageLimit(values.limit, 100);
  const filters = Object.fromEntries(
    Object.entries({ actorId: values.actor, targetId: values.target, since: values.since, until: values.until }).filter(([, v]) => v !== undefined),
  );
  return withDbAsync(
    values.db,
    async (ctx) => {
      const page = async (cursor: string | undefined, size: number): Promise<Page> => {
        try {
          return await operate<Page>(ctx, listAuditEventsTool, { ...filters, limit: size, ...(cursor ? { cursor } : {}) });
        } catch (err) {
          throw asUsageError(err, NAMES);
        }
      };
      if (values.csv) {
        stdout('at,actorType,actorId,actorName,action,targetIds,summary');
        let cursor = values.cursor;
        do {
          const p = await page(cursor, 100);
          for (const e of p.events) stdout(auditCsvLine(e));
          cursor = p.nextCursor ?? undefined;
        } while (cursor);
        return;
      }
      const p = await page(values.cursor, limit);
      if (values.json) return stdout(JSON.stringify(p, null, 2));
      if (p.events.length === 0) return stdout('No audit event matches.');
      for (const e of p.events) {
        stdout(`${e.at}  ${e.actor.type} ${e.actor.id} (${e.actor.name})  ${e.action}  ${e.targetIds.join(',') || '-'}  ${e.summary}`);
      }
      if (p.nextCursor) stdout(`More: --cursor ${p.nextCursor}`);
    },
    { mustExist: true },
  );
}
