import { eq } from 'drizzle-orm';
import { agents, campaigns, webhookEvents, type leads } from '../../db/schema.js';
import { iso } from '../clock.js';
import type { Ctx } from '../context.js';
import type { WebhookEventType } from '../events.js';
import { newId } from '../ids.js';
import { clean, composeFullName } from '../text.js';

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
 * The account a lead's events belong to: the lead's own account, else its campaign agent's
 * account, else the account of the chat it was messaged in (spec, Events: data.accountId).
 */
export function leadAccountId(ctx: Ctx, lead: LeadRow, chatAccountId: string | null = null): string | null {
  if (lead.accountId) return lead.accountId;
  const row = ctx.db
    .select({ accountId: agents.accountId })
    .from(campaigns)
    .innerJoin(agents, eq(agents.id, campaigns.assignedTemplateId))
    .where(eq(campaigns.id, lead.campaignId))
    .get();
  return row?.accountId ?? chatAccountId;
}

/**
 * Records a lead event in the durable outbox. Call it inside the transaction that makes the
 * change, so the event exists exactly when the change does; the webhook worker delivers it.
 */
export function recordLeadEvent(
  ctx: Ctx,
  type: WebhookEventType,
  lead: LeadRow,
  extra: Record<string, unknown> = {},
  chatAccountId: string | null = null,
): string {
  const id = newId('evt');
  const now = ctx.clock.now();
  const campaign = ctx.db.select({ id: campaigns.id, name: campaigns.name }).from(campaigns).where(eq(campaigns.id, lead.campaignId)).get();
  const payload = {
    id,
    type,
    createdAt: iso(now),
    data: {
      accountId: leadAccountId(ctx, lead, chatAccountId),
      campaign: campaign ?? { id: lead.campaignId, name: null },
      lead: leadSnapshot(lead),
      ...extra,
    },
  };
  ctx.db.insert(webhookEvents).values({ id, type, createdAt: now, payload: JSON.stringify(payload) }).run();
  return id;
}
