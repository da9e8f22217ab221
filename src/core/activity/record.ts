import type { leads } from '../../db/schema.js';
import { activityStatements, insertActivity } from '../../db/sql/activity.js';
import { campaignStatements } from '../../db/sql/campaigns.js';
import { accountToday } from '../accounts/today.js';
import { campaignNow } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { noteChange } from '../live/feed.js';
import type { ActivityType } from '../leads/enums.js';
import { clean, composeFullName, messagePreview } from '../text.js';
import { crmOnActivity } from '../crm/enqueue.js';

type LeadRow = typeof leads.$inferSelect;

export interface ActivityInput {
  type: ActivityType;
  at: number;
  lead: LeadRow;
  text?: string | null;
  handOffReason?: string | null;
  accountId: string | null;
  /** Manual operator sends are recorded for the record but never listed. */
  manual?: boolean;
}

/**
 * Records one activity event with name and company snapshots taken now, and what of it the CRM
 * is to hear (an invitation, a message or a reply), in the caller's transaction.
 */
export function recordActivity(ctx: Ctx, input: ActivityInput): string {
  const id = newSortableId('act');
  insertActivity(ctx.db, {
    id,
    type: input.type,
    at: input.at,
    leadId: input.lead.id,
    leadName: composeFullName(input.lead.fullName, input.lead.firstName, input.lead.lastName),
    companyName: clean(input.lead.companyName),
    campaignId: input.lead.campaignId,
    messagePreview: messagePreview(input.text),
    handOffReason: input.handOffReason ?? null,
    accountId: input.accountId,
    manual: input.manual ?? false,
  });
  crmOnActivity(ctx, input);
  return id;
}

export type OutreachCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'repliesReceived';

/**
 * Adds one to a campaign stat and to the workspace lifetime counter beside it, and touches the
 * campaign's `updatedAt` (on the campaign clock, see core/campaigns/state-machine.ts). Call
 * inside the transaction that records the event.
 */
export function countOutreach(ctx: Ctx, campaignId: string, counter: OutreachCounter): void {
  campaignStatements(ctx.db).count[counter].run({ campaignId, updatedAt: campaignNow(ctx) });
  activityStatements(ctx.db).countWorkspace[counter].run();
  noteChange(ctx, { resource: 'campaign', campaignId });
}

/** An InMail counts as `messagesSent`: it is a message under the daily message cap (docs/account-safety.md). */
export type DailyCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'profileVisits' | 'postReactions';

/** Adds one to an account's counter for today, the engine's day (see core/accounts/today.ts). */
export function countAccountDaily(ctx: Ctx, accountId: string, counter: DailyCounter): void {
  activityStatements(ctx.db).countDaily[counter].run({ accountId, day: accountToday(ctx) });
}
