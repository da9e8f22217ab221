import { leadStatements, type LeadRow } from '../../db/sql/leads.js';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { excludeEverywhere } from '../leads/exclude.js';
import { leadsWithEmail } from '../mailboxes/store.js';
import { normalizeProfileUrl } from '../leads/url.js';
import type { CrmContactState, CrmPort } from '../network/crm.js';
import { closeDraftsOfEndedSequence } from '../outreach/runner.js';
import { loadCampaignInfo } from '../outreach/state.js';
import { endSequence, getPosition } from '../sequences/store.js';
import { crmStore } from './store.js';

/** The lifecycle stages at which the CRM owns the person: outreach stops. */
export const ENDING_STAGES: ReadonlySet<string> = new Set(['opportunity', 'customer']);

/** Contacts read per call; a poll reads pages until one comes back short. */
export const PULL_PAGE = 100;
/** Pages one poll reads at most, so a huge backlog of changes is worked through over several polls. */
const PULL_PAGES_MAX = 50;

/** Why a changed contact ends its lead's sequence, or null when it does not. */
export function endingReason(contact: CrmContactState): string | null {
  if (contact.doNotContact) return 'marked do not contact';
  const stage = contact.lifecycleStage?.toLowerCase() ?? null;
  return stage !== null && ENDING_STAGES.has(stage) ? `lifecycle stage ${stage}` : null;
}

/** Whether the pull is due: never polled, or the interval has passed since the last poll. */
export function pullDue(ctx: Ctx): boolean {
  if (!ctx.crm) return false;
  const state = crmStore.pullState(ctx.db, ctx.crm.crm);
  return !state || state.lastPolledAt === null || ctx.clock.now() >= state.lastPolledAt + ctx.crm.pollMs;
}

/** The stored cursor, where the next poll starts (null: from the beginning). */
export function pullCursor(ctx: Ctx): string | null {
  if (!ctx.crm) return null;
  return crmStore.pullState(ctx.db, ctx.crm.crm)?.cursor ?? null;
}

export interface PullResult {
  read: number;
  /** Leads whose sequence this poll ended (and excluded). */
  ended: number;
  unmatched: number;
}

/**
 * Leads a contact stands for: those linked to it, else those with its email, else its LinkedIn
 * URL; then every lead with the same URL in other campaigns, as an exclusion reaches them all.
 */
function leadsOf(ctx: Ctx, crm: string, contact: CrmContactState): LeadRow[] {
  const found = new Map<string, LeadRow>();
  for (const id of crmStore.leadsOfContact(ctx.db, crm, contact.contactId)) {
    const lead = leadStatements(ctx.db).byId.get(id);
    if (lead) found.set(lead.id, lead);
  }
  if (found.size === 0 && contact.email) for (const lead of leadsWithEmail(ctx, contact.email.toLowerCase())) found.set(lead.id, lead);
  // The CRM holds the URL as a person typed it; leads hold it normalised.
  const url = contact.networkUrl ? normalizeProfileUrl(contact.networkUrl) : null;
  if (found.size === 0 && url) for (const lead of leadStatements(ctx.db).byUrl.all(url)) found.set(lead.id, lead);
  for (const url of new Set([...found.values()].map((l) => l.networkUrl).filter((u): u is string => u !== null))) {
    for (const lead of leadStatements(ctx.db).byUrl.all(url)) found.set(lead.id, lead);
  }
  return [...found.values()];
}

/**
 * Applies one page of changed contacts and stores the cursor after it, in one transaction: a
 * contact at `opportunity` or `customer`, or marked do not contact, ends the sequence of each
 * lead it stands for as an exclusion does (excluded everywhere, sequence ended `excluded`, open
 * step drafts closed), links those leads to it, and is logged. Other changes are read and passed.
 */
export function applyPulledContacts(ctx: Ctx, contacts: readonly CrmContactState[], cursor: string | null): PullResult {
  const sync = ctx.crm;
  if (!sync) return { read: 0, ended: 0, unmatched: 0 };
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    const at = ctx.simClock.now();
    const result: PullResult = { read: contacts.length, ended: 0, unmatched: 0 };
    for (const contact of contacts) {
      const reason = endingReason(contact);
      if (reason === null) continue;
      const leads = leadsOf(ctx, sync.crm, contact);
      if (leads.length === 0) {
        result.unmatched++;
        log(ctx, { kind: 'contact', leadId: null, contactId: contact.contactId, outcome: 'unmatched', detail: `${reason}; no lead matches the contact` });
        continue;
      }
      for (const lead of leads) {
        if (crmStore.link(ctx.db, lead.id) === undefined) crmStore.setLink(ctx.db, { leadId: lead.id, crm: sync.crm, contactId: contact.contactId, now });
        const wasExcluded = lead.excluded;
        excludeEverywhere(ctx, { id: lead.id, networkUrl: lead.networkUrl });
        const position = getPosition(ctx, lead.id);
        const ended = position !== undefined && position.stepId !== null && endSequence(ctx, { leadId: lead.id, reason: 'excluded', at });
        if (ended) {
          const info = loadCampaignInfo(ctx, lead.campaignId);
          if (info) closeDraftsOfEndedSequence(ctx, lead.id, info, 'excluded', at);
        }
        if (!ended && wasExcluded) continue;
        result.ended++;
        log(ctx, {
          kind: 'contact',
          leadId: lead.id,
          contactId: contact.contactId,
          outcome: 'ended',
          detail: `${reason}: ${ended ? 'sequence ended, lead excluded' : 'lead excluded'}`,
        });
      }
    }
    crmStore.savePullState(ctx.db, { crm: sync.crm, cursor, lastPolledAt: now, intervalMs: sync.pollMs, lastError: null, now });
    return result;
  });
}

/**
 * One poll: reads the contacts changed since the stored cursor, a page at a time (the CRM calls
 * outside any transaction), and applies each page with its cursor. A failed call is logged and
 * stored as the pull's last error; the cursor stays where it was, so nothing is skipped.
 */
export async function pullOnce(ctx: Ctx, port: CrmPort): Promise<PullResult> {
  const total: PullResult = { read: 0, ended: 0, unmatched: 0 };
  const sync = ctx.crm;
  if (!sync) return total;
  let cursor = pullCursor(ctx);
  for (let page = 0; page < PULL_PAGES_MAX; page++) {
    let changed: Awaited<ReturnType<CrmPort['changedContacts']>>;
    try {
      changed = await port.changedContacts(cursor, PULL_PAGE);
    } catch (err) {
      const error = (err instanceof Error ? err.message : 'unknown error').slice(0, 500);
      transaction(ctx.db, () => {
        const now = ctx.clock.now();
        crmStore.savePullState(ctx.db, { crm: sync.crm, lastPolledAt: now, intervalMs: sync.pollMs, lastError: error, now });
        log(ctx, { kind: 'poll', leadId: null, contactId: null, outcome: 'failed', detail: `reading changed contacts failed: ${error}` });
      });
      return total;
    }
    const applied = applyPulledContacts(ctx, changed.contacts, changed.cursor ?? cursor);
    total.read += applied.read;
    total.ended += applied.ended;
    total.unmatched += applied.unmatched;
    cursor = changed.cursor ?? cursor;
    if (changed.contacts.length < PULL_PAGE) break;
  }
  if (total.read > 0) {
    transaction(ctx.db, () =>
      log(ctx, {
        kind: 'poll',
        leadId: null,
        contactId: null,
        outcome: 'succeeded',
        detail: `${total.read} changed contact${total.read === 1 ? '' : 's'} read; ${total.ended} lead${total.ended === 1 ? '' : 's'} ended`,
      }),
    );
  }
  return total;
}

function log(ctx: Ctx, entry: { kind: string; leadId: string | null; contactId: string | null; outcome: string; detail: string }): void {
  crmStore.insertLog(ctx.db, { id: newSortableId('crl'), direction: 'pull', pushId: null, at: ctx.clock.now(), ...entry });
}
