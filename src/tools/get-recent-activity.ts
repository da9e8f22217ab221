import { z } from 'zod';
import { ActivityEvent, listActivity } from '../core/activity/list.js';
import { ActivityType } from '../core/leads/enums.js';
import { Cursor, Limit } from '../core/pagination.js';
import { defineTool } from './define.js';

export const getRecentActivityTool = defineTool({
  name: 'get_recent_activity',
  title: 'Get recent activity',
  description:
    'Lists outreach events across all campaigns, newest first: requests sent and accepted, messages, replies, hand-offs. Use type=reply_received for the latest replies. Free.',
  input: z.strictObject({
    type: ActivityType.optional().describe('Only events of this type.'),
    limit: Limit,
    cursor: Cursor.optional().describe('nextCursor of the previous page, with the same type.'),
  }),
  output: z.object({ events: z.array(ActivityEvent), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  http: { method: 'GET', path: '/activity' },
  handler: (ctx, input, caller) => listActivity(ctx, caller.workspace.cursorSecret, input),
});
