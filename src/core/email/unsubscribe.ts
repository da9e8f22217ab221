import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { excludeEverywhere } from '../leads/exclude.js';
import { leadStatements } from '../../db/sql/leads.js';
import { addEmailExclusion, leadsWithEmail } from '../mailboxes/store.js';
import { closeDraftsOfEndedSequence } from '../outreach/runner.js';
import { loadCampaignInfo } from '../outreach/state.js';
import { endSequence, getPosition } from '../sequences/store.js';
import { suggestByRule } from '../triage/suggest.js';
import { emailSendById } from '../mailboxes/store.js';
import { sendOfToken } from './send.js';

/**
 * Puts an address on the workspace's email exclusion list and ends the sequence of every lead
 * with it, in every campaign (an exclusion). The one verb behind the one-click unsubscribe, a
 * simulated lead's unsubscribe and a bounce (reason `bounced`: the address is dead, but the
 * lead's sequence goes on; its email steps are skipped). Returns whether the address was new on
 * the list. Runs in one transaction.
 */
export function excludeAddress(ctx: Ctx, address: string, reason: 'unsubscribed' | 'bounced'): boolean {
  const at = ctx.simClock.now();
  return transaction(ctx.db, () => {
    const added = addEmailExclusion(ctx, address, reason, at);
    if (reason !== 'unsubscribed') return added;
    for (const lead of leadsWithEmail(ctx, address)) {
      excludeEverywhere(ctx, { id: lead.id, networkUrl: lead.networkUrl });
      // Recognised without a model, as an unsubscribe written in a reply is (a lead with a thread
      // only). Its event shows the lead as it now is: excluded.
      suggestByRule(ctx, leadStatements(ctx.db).byId.get(lead.id) ?? lead, 'unsubscribe');
      const position = getPosition(ctx, lead.id);
      if (position && position.stepId !== null && endSequence(ctx, { leadId: lead.id, reason: 'excluded', at })) {
        const info = loadCampaignInfo(ctx, lead.campaignId);
        if (info) closeDraftsOfEndedSequence(ctx, lead.id, info, 'excluded', at);
      }
    }
    return added;
  });
}

export type UnsubscribeResult = { ok: true; address: string } | { ok: false };

/**
 * The one-click unsubscribe (RFC 8058) of the send a signed token names. Repeating it is
 * harmless: the address stays on the list. A token this server did not sign is refused.
 */
export function unsubscribe(ctx: Ctx, token: string): UnsubscribeResult {
  const sendId = sendOfToken(ctx, token);
  if (sendId === null) return { ok: false };
  const send = emailSendById(ctx, sendId);
  if (!send) return { ok: false };
  excludeAddress(ctx, send.address, 'unsubscribed');
  ctx.log.info({ sendId }, 'address unsubscribed');
  return { ok: true, address: send.address };
}
