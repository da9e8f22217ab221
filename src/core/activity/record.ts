import { eq, sql } from 'drizzle-orm';
import { fast, inserterOf, perDb } from '../../db/prepared.js';
import { accountDaily, activity, campaigns, workspace, type leads } from '../../db/schema.js';
import { accountToday } from '../accounts/today.js';
import { campaignNow } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import type { ActivityType } from '../leads/enums.js';
import { clean, composeFullName } from '../text.js';
import { WORKSPACE_ID } from '../workspace/get.js';

type LeadRow = typeof leads.$inferSelect;

export const PREVIEW_MAX = 80;

/**
 * A one-line preview of a message: whitespace runs become one space, and text longer than
 * 80 characters (code points) is cut to 79 and ends with an ellipsis, so it is never longer
 * than 80.
 */
export function messagePreview(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return null;
  const chars = [...flat];
  return chars.length <= PREVIEW_MAX
    ? flat
    : `${chars
        .slice(0, PREVIEW_MAX - 1)
        .join('')
        .trimEnd()}…`;
}

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

/** Records one activity event with name and company snapshots taken now. */
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
  return id;
}

// Prepared once per database (and column set): the engine records activity on every send.
const insertActivity = inserterOf(activity);

export type OutreachCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'repliesReceived';

const CAMPAIGN_COLUMNS = {
  connectionRequestsSent: campaigns.connectionRequestsSent,
  connectionRequestsAccepted: campaigns.connectionRequestsAccepted,
  messagesSent: campaigns.messagesSent,
  repliesReceived: campaigns.repliesReceived,
} as const;
const WORKSPACE_COLUMNS = {
  connectionRequestsSent: workspace.connectionRequestsSent,
  connectionRequestsAccepted: workspace.connectionRequestsAccepted,
  messagesSent: workspace.messagesSent,
  repliesReceived: workspace.repliesReceived,
} as const;

/**
 * Adds one to a campaign stat and to the workspace lifetime counter beside it, and touches the
 * campaign's `updatedAt` (on the campaign clock, see core/campaigns/state-machine.ts). Call
 * inside the transaction that records the event.
 */
export function countOutreach(ctx: Ctx, campaignId: string, counter: OutreachCounter): void {
  const s = outreachCounters(ctx.db)[counter];
  s.campaign.run({ campaignId, updatedAt: campaignNow(ctx) });
  s.workspace.run();
}

// Prepared once per database and counter: every send and acceptance bumps two of them.
const outreachCounters = perDb((db) => {
  const build = (counter: OutreachCounter) => ({
    campaign: fast(
      db
        .update(campaigns)
        .set({ [counter]: sql`${CAMPAIGN_COLUMNS[counter]} + 1`, updatedAt: sql`${sql.placeholder('updatedAt')}` })
        .where(eq(campaigns.id, sql.placeholder('campaignId')))
        .prepare(),
    ),
    workspace: fast(
      db
        .update(workspace)
        .set({ [counter]: sql`${WORKSPACE_COLUMNS[counter]} + 1` })
        .where(eq(workspace.id, WORKSPACE_ID))
        .prepare(),
    ),
  });
  return {
    connectionRequestsSent: build('connectionRequestsSent'),
    connectionRequestsAccepted: build('connectionRequestsAccepted'),
    messagesSent: build('messagesSent'),
    repliesReceived: build('repliesReceived'),
  };
});

/** An InMail counts as `messagesSent`: it is a message under the daily message cap (docs/account-safety.md). */
export type DailyCounter = 'connectionRequestsSent' | 'connectionRequestsAccepted' | 'messagesSent' | 'profileVisits' | 'postReactions';

const DAILY_COLUMNS = {
  connectionRequestsSent: accountDaily.connectionRequestsSent,
  connectionRequestsAccepted: accountDaily.connectionRequestsAccepted,
  messagesSent: accountDaily.messagesSent,
  profileVisits: accountDaily.profileVisits,
  postReactions: accountDaily.postReactions,
} as const;

/** Adds one to an account's counter for today, the engine's day (see core/accounts/today.ts). */
export function countAccountDaily(ctx: Ctx, accountId: string, counter: DailyCounter): void {
  dailyCounters(ctx.db)[counter].run({ accountId, day: accountToday(ctx) });
}

const dailyCounters = perDb((db) => {
  const build = (counter: DailyCounter) =>
    fast(
      db
        .insert(accountDaily)
        .values({ accountId: sql.placeholder('accountId'), day: sql.placeholder('day'), [counter]: 1 })
        .onConflictDoUpdate({ target: [accountDaily.accountId, accountDaily.day], set: { [counter]: sql`${DAILY_COLUMNS[counter]} + 1` } })
        .prepare(),
    );
  return {
    connectionRequestsSent: build('connectionRequestsSent'),
    connectionRequestsAccepted: build('connectionRequestsAccepted'),
    messagesSent: build('messagesSent'),
    profileVisits: build('profileVisits'),
    postReactions: build('postReactions'),
  };
});
