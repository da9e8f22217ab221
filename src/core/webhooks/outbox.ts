import type { leads } from '../../db/schema.js';
import { campaignStatements } from '../../db/sql/campaigns.js';
import { webhookStatements } from '../../db/sql/webhooks.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import { linkedInChatAccountOf } from '../conversations/store.js';
import type { WebhookEventType } from '../events.js';
import { newSortableId } from '../ids.js';
import { clean, composeFullName } from '../text.js';
import { describeIssue } from '../validation.js';
import { WEBHOOK_EVENT_SCHEMAS, type LeadEventExtra } from './payloads.js';

type LeadRow = typeof leads.$inferSelect;

/** The lead as webhook payloads carry it: public fields only, like the API's lead view. */
export function leadSnapshot(lead: LeadRow) {
  return {
    id: lead.id,
    fullName: composeFullName(lead.fullName, lead.firstName, lead.lastName),
    firstName: clean(lead.firstName),
    lastName: clean(lead.lastName),
    networkUrl: lead.networkUrl,
    jobTitle: clean(lead.jobTitle),
    companyName: clean(lead.companyName),
    tag: lead.tag,
    stage: lead.stage,
    excluded: lead.excluded,
  };
}

/**
 * The account a lead's events belong to: the lead's own account, else the account of the chat
 * the event came from (`chatAccountId`) or, for an event of no chat (a tag, a hand-off), of the
 * lead's LinkedIn chat; else its campaign agent's account, the one that would write first.
 */
export function leadAccountId(ctx: Ctx, lead: LeadRow, chatAccountId: string | null = null): string | null {
  if (lead.accountId) return lead.accountId;
  const chat = chatAccountId ?? linkedInChatAccountOf(ctx, lead.id);
  if (chat !== null) return chat;
  return campaignStatements(ctx.db).agentAccount.get(lead.campaignId)?.accountId ?? null;
}

/**
 * Records a lead event in the durable outbox. Call it inside the transaction that makes the
 * change, so the event exists exactly when the change does; the webhook worker delivers it.
 * `lead` is the row after the change; `extra` is the event's own data (see payloads.ts and
 * docs/webhooks.md). The payload is checked against its published schema first: a payload that
 * breaks the contract is a bug, and throwing rolls the causing change back with it.
 */
export function recordLeadEvent<T extends WebhookEventType>(
  ctx: Ctx,
  type: T,
  lead: LeadRow,
  extra: LeadEventExtra<T>,
  chatAccountId: string | null = null,
): string {
  const id = newSortableId('evt');
  const now = ctx.clock.now();
  const campaign = campaignStatements(ctx.db).idAndName.get(lead.campaignId);
  const parsed = WEBHOOK_EVENT_SCHEMAS[type].safeParse({
    id,
    type,
    createdAt: iso(now),
    data: {
      accountId: leadAccountId(ctx, lead, chatAccountId),
      campaign: campaign ?? { id: lead.campaignId, name: null },
      lead: leadSnapshot(lead),
      ...extra,
    },
  });
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => describeIssue(i)).join('; ');
    throw new TypeError(`${type} payload breaks its schema (src/core/webhooks/payloads.ts): ${where}`);
  }
  webhookStatements(ctx.db).insertEvent.run({ id, type, createdAt: now, payload: JSON.stringify(parsed.data) });
  return id;
}
