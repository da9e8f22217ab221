import { z } from 'zod';
import { activitySeries, ActivitySeries, SERIES_DAYS_MAX } from '../../core/activity/series.js';
import { DoneResult, MESSAGE_CHANNELS, markConversationDone, replyToConversation } from '../../core/conversations/threads.js';
import { SendMessageResult } from '../../core/inbox/send.js';
import { defineOperatorTool } from '../define.js';
import { LeadId } from '../params.js';
import { MESSAGE_TEXT_MAX } from '../../core/outreach/limits.js';

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export const replyConversationTool = defineOperatorTool({
  name: 'reply_conversation',
  title: 'Reply to conversation',
  description:
    "Answers a lead now, on the thread's channel: on LinkedIn through send_message's rules (account, quotas, exclusion); by email from the thread's mailbox, threaded as a reply, under the mailbox's rules. The agent steps back.",
  input: z.strictObject({
    leadId: LeadId,
    channel: z
      .enum(MESSAGE_CHANNELS)
      .optional()
      .describe("linkedin or email; default the thread's (get_conversation's reply.channel: where the lead last wrote)."),
    text: z
      .string()
      .min(1)
      .refine((t) => t.trim() !== '', 'must not be blank')
      .refine((t) => [...t].length <= MESSAGE_TEXT_MAX, `must be at most ${MESSAGE_TEXT_MAX} characters`),
  }),
  output: SendMessageResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotent: true,
  handler: (ctx, input) => replyToConversation(ctx, input),
});

export const markConversationDoneTool = defineOperatorTool({
  name: 'mark_conversation_done',
  title: 'Mark conversation done',
  description: "Clears the lead's needsReply: nothing more is owed to it.",
  input: z.strictObject({ leadId: LeadId }),
  output: DoneResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => markConversationDone(ctx, input.leadId),
});

export const getActivitySeriesTool = defineOperatorTool({
  name: 'get_activity_series',
  title: 'Get activity series',
  description: 'Sends, acceptances and replies per UTC day for the last `days` days, for the overview charts.',
  input: z.strictObject({ days: z.number().int().min(1).max(SERIES_DAYS_MAX).default(30).describe(`1..${SERIES_DAYS_MAX}, default 30.`) }),
  output: ActivitySeries,
  annotations: READ,
  handler: (ctx, input) => activitySeries(ctx, input.days),
});
