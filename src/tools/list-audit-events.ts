import { z } from 'zod';
import { AuditEvent, listAuditEvents } from '../core/audit/list.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';

const Instant = z.iso.datetime({ offset: true });

export const listAuditEventsTool = defineTool({
  name: 'list_audit_events',
  title: 'List audit events',
  description:
    'Lists the audit trail, newest first: every write with who made it (member, API key or OAuth client), the tool or action, the ids it touched and when. Filter by actor, target and time. Free.',
  input: z.strictObject({
    actorId: z.string().min(1).max(64).optional().describe('Only events by this member (usr_…), key (key_…) or OAuth client.'),
    targetId: z.string().min(1).max(64).optional().describe('Only events that touched this id (a campaign, lead, draft, member…).'),
    since: Instant.optional().describe('ISO 8601: events at or after this time.'),
    until: Instant.optional().describe('ISO 8601: events before this time.'),
    limit: Limit,
    cursor: Cursor.optional().describe('nextCursor of the previous page, with the same filters.'),
  }),
  output: z.object({ events: z.array(AuditEvent), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/audit' },
  toolset: 'audit',
  handler: (ctx, input, caller) => listAuditEvents(ctx, caller.workspace.cursorSecret, input),
});
