import { eq } from 'drizzle-orm';
import type { Ctx } from '../../src/core/context.js';
import type { WebhookEventType } from '../../src/core/events.js';
import type { LeadTag } from '../../src/core/leads/enums.js';
import { recordLeadEvent } from '../../src/core/webhooks/outbox.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { leads } from '../../src/db/schema.js';
import { transaction } from '../../src/db/tx.js';
import { fixture } from '../helpers.js';

export const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** The fixture workspace with its webhook section replaced. */
export function webhookWorkspace(
  endpoints: { url: string; events?: WebhookEventType[] }[],
  opts: { secret?: string | null; extraLeads?: number } = {},
): WorkspaceFileInput {
  const ws = fixture();
  ws.webhooks = {
    secret: opts.secret === undefined ? SECRET : opts.secret,
    endpoints: endpoints.map((e) => ({ url: e.url, events: e.events ?? ['lead.tagged'] })),
  };
  const q4 = ws.campaigns?.find((c) => c.id === 'cmp_q4');
  for (let i = 0; i < (opts.extraLeads ?? 0); i++) {
    q4?.leads?.push({ id: `lead_bulk${i}`, networkUrl: `https://www.linkedin.com/in/bulk-person-${i}`, firstName: `Bulk${i}`, lastName: 'Person' });
  }
  return ws;
}

/**
 * Changes a lead's tag the way a lead write does: the update and its lead.tagged event in one
 * transaction. Returns the event id.
 */
export function tagLead(ctx: Ctx, leadId: string, tag: LeadTag): string {
  return transaction(ctx.db, () => {
    const before = ctx.db.select().from(leads).where(eq(leads.id, leadId)).get();
    if (!before) throw new Error(`no lead ${leadId}`);
    ctx.db.update(leads).set({ tag, taggedAt: ctx.clock.now() }).where(eq(leads.id, leadId)).run();
    const after = ctx.db.select().from(leads).where(eq(leads.id, leadId)).get()!;
    return recordLeadEvent(ctx, 'lead.tagged', after, { tag, previousTag: (before.tag as LeadTag | null) ?? null });
  });
}

/** Polls until `check` holds, on real time; for deliveries made by a worker on a timer. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
