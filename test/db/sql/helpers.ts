import { eq } from 'drizzle-orm';
import { restoreCampaign } from '../../../src/core/campaigns/state-machine.js';
import { leads } from '../../../src/db/schema.js';
import { engineWorkspace } from '../../engine/helpers.js';
import { testCtx } from '../../helpers.js';

/**
 * A workspace with leads in every state the engine's statements tell apart: due, fresh, waiting,
 * done, excluded, with a polite close pending; a paused campaign and a running one without an agent.
 */
export function variedCtx() {
  const ctx = testCtx({
    workspace: engineWorkspace(['ann', { slug: 'bob', excluded: true }, 'cy', 'dee', 'eve', 'fay', { slug: 'gus', stage: 'replied' }]),
  });
  const db = ctx.db;
  restoreCampaign(ctx, { id: 'cmp_none', name: 'No agent', status: 'CAMPAIGN_IN_PROGRESS', createdAt: 1, updatedAt: 1 });
  restoreCampaign(ctx, { id: 'cmp_2', name: 'Second', status: 'CAMPAIGN_PAUSED', assignedTemplateId: 'tpl', createdAt: 2, updatedAt: 2 });
  const set = (id: string, values: Partial<typeof leads.$inferInsert>) => db.update(leads).set(values).where(eq(leads.id, id)).run();
  set('lead_1', { nextActionAt: 500, providerId: 'p1', replied: true, needsReply: true, repliedAt: 40 });
  set('lead_2', { nextActionAt: null, politeClosePendingAt: 30 });
  set('lead_3', { nextActionAt: 1500, politeClosePendingAt: 10, connectionRequestAccepted: true, messageSent: true });
  set('lead_4', { nextActionAt: 200, campaignId: 'cmp_2' });
  set('lead_5', { nextActionAt: 0 });
  set('lead_6', { nextActionAt: 900, providerId: 'p6' });
  set('lead_7', { nextActionAt: null });
  return ctx;
}

export const bySeq = <R extends { seq: number }>(rows: readonly R[]): R[] => [...rows].sort((a, b) => a.seq - b.seq);
