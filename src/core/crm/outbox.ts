import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { CrmError, type CrmContactInput, type CrmPort } from '../network/crm.js';
import { MAX_ATTEMPTS, nextAttemptDelay, type Rng } from '../webhooks/schedule.js';
import type { DealPayload, NotePayload } from './enqueue.js';
import { crmStore, type PushKind, type PushRow } from './store.js';

/**
 * The outbox's state machine over SQLite, as webhook deliveries have it: each step is one short
 * transaction, and the CRM call happens between them (the worker schedules it, outside any
 * transaction), so a push survives a crash at any point.
 *
 *   queued ──claim──▶ in flight (leased) ──complete──▶ succeeded
 *      ▲                  │ crash: lease runs out
 *      └─ retry per the webhook schedule ◀── failure ──▶ failed after the last attempt
 *
 * The idempotency rule is the webhooks' one: the push's id travels with every attempt (the
 * port's `pushId`), and the adapter makes a create it already carried a no-op, so an attempt
 * cut off by a crash and made again is never made twice in the CRM.
 */

export const INTERRUPTED = 'interrupted: the server stopped before the answer was recorded';

/** A push taken for one attempt. */
export interface ClaimedPush {
  id: string;
  leadId: string;
  kind: PushKind;
  payload: string;
  /** 1-based. */
  attempt: number;
}

/** What one attempt came to. */
export type PushOutcome = { ok: true; crmId: string; created: boolean; contactId: string } | { ok: false; error: CrmError };

/**
 * Takes up to `limit` due pushes for one attempt each, leased until now + leaseMs. Each is the
 * oldest unfinished push of its lead, so a lead's notes and deal follow its contact in order. A
 * push whose earlier attempt a crash cut off counts that attempt, and ends failed if it was its
 * last. `skip` holds pushes this process has in flight.
 */
export function claimPushes(ctx: Ctx, limit: number, leaseMs: number, skip: ReadonlySet<string> = new Set()): ClaimedPush[] {
  if (limit <= 0 || !ctx.crm) return [];
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    const claimed: ClaimedPush[] = [];
    for (const row of crmStore.due(ctx.db, now, limit, skip)) {
      if (row.attempts >= MAX_ATTEMPTS) {
        crmStore.settle(ctx.db, row.id, { state: 'failed', nextAttemptAt: null, lastError: INTERRUPTED, now });
        log(ctx, row, 'failed', `given up after ${row.attempts} attempts: ${INTERRUPTED}`, null);
        continue;
      }
      const attempt = row.attempts + 1;
      crmStore.lease(ctx.db, row.id, attempt, now + leaseMs, now);
      claimed.push({ id: row.id, leadId: row.leadId, kind: row.kind as PushKind, payload: row.payload, attempt });
    }
    return claimed;
  });
}

/**
 * Makes one claimed push in the CRM: the contact (found by email, then LinkedIn URL, or created),
 * or a note or deal on the lead's contact. Never inside a transaction; it only reads the link.
 */
export async function carryPush(ctx: Ctx, port: CrmPort, push: ClaimedPush): Promise<PushOutcome> {
  try {
    if (push.kind === 'contact') {
      const { contactId, created } = await port.upsertContact(JSON.parse(push.payload) as CrmContactInput);
      return { ok: true, crmId: contactId, created, contactId };
    }
    const link = crmStore.link(ctx.db, push.leadId);
    if (!link) return { ok: false, error: new CrmError('the lead has no CRM contact: its contact push failed', false) };
    if (push.kind === 'note') {
      const note = JSON.parse(push.payload) as NotePayload;
      const { noteId, created } = await port.addNote(link.contactId, { pushId: push.id, body: note.body, at: note.at });
      return { ok: true, crmId: noteId, created, contactId: link.contactId };
    }
    const deal = JSON.parse(push.payload) as DealPayload;
    const { dealId, created } = await port.openDeal(link.contactId, { pushId: push.id, ...deal });
    return { ok: true, crmId: dealId, created, contactId: link.contactId };
  } catch (err) {
    return { ok: false, error: err instanceof CrmError ? err : new CrmError(`the CRM call failed: ${messageOf(err)}`, true) };
  }
}

/** Refused tokens are retried on the schedule: the operator can fix the token, and nothing queued is lost meanwhile. */
const retries = (err: CrmError): boolean => err.retryable || err.status === 401 || err.status === 403;

/**
 * Records an attempt's outcome and what follows: succeeded (a contact push links the lead to its
 * contact); after a failure, the next attempt on the webhook schedule, or failed after the last
 * one or for an error no retry mends (a bad request). Returns the push's state after it.
 */
export function completePush(ctx: Ctx, push: ClaimedPush, outcome: PushOutcome, rng: Rng = Math.random): 'succeeded' | 'pending' | 'failed' {
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    const row = { id: push.id, leadId: push.leadId, kind: push.kind };
    if (outcome.ok) {
      if (!crmStore.settle(ctx.db, push.id, { state: 'succeeded', nextAttemptAt: null, lastError: null, crmId: outcome.crmId, now })) return 'failed';
      if (push.kind === 'contact' && ctx.crm) crmStore.setLink(ctx.db, { leadId: push.leadId, crm: ctx.crm.crm, contactId: outcome.contactId, now });
      const what = `${push.kind} ${outcome.crmId} ${outcome.created ? 'created' : push.kind === 'contact' ? 'updated' : 'already there'}`;
      log(ctx, row, 'succeeded', push.attempt > 1 ? `${what} (attempt ${push.attempt})` : what, outcome.contactId);
      return 'succeeded';
    }
    const error = outcome.error.message.slice(0, 500);
    // A rate-limited CRM's Retry-After postpones the next attempt, as a webhook receiver's does.
    const retryAfterSeconds = outcome.error.retryAfterMs === null ? null : Math.ceil(outcome.error.retryAfterMs / 1000);
    const delay = retries(outcome.error) ? nextAttemptDelay(push.attempt, rng, retryAfterSeconds) : null;
    if (delay === null) {
      if (!crmStore.settle(ctx.db, push.id, { state: 'failed', nextAttemptAt: null, lastError: error, now })) return 'failed';
      const why = retries(outcome.error) ? `given up after ${push.attempt} attempts` : 'not retried';
      log(ctx, row, 'failed', `${why}: ${error}`, null);
      return 'failed';
    }
    if (!crmStore.settle(ctx.db, push.id, { state: 'pending', nextAttemptAt: now + delay, lastError: error, now })) return 'failed';
    log(ctx, row, 'retrying', `attempt ${push.attempt} failed: ${error}; next in ${Math.round(delay / 1000)} s`, null);
    return 'pending';
  });
}

/**
 * One push from claim to record: carry it, then record what came of it. `abandoned` is asked
 * after the call: a stopping server that gave up waiting records nothing, and the lease makes
 * the push due again after the restart.
 */
export async function pushOnce(
  ctx: Ctx,
  port: CrmPort,
  push: ClaimedPush,
  rng?: Rng,
  abandoned: () => boolean = () => false,
): Promise<'succeeded' | 'pending' | 'failed' | 'abandoned'> {
  const outcome = await carryPush(ctx, port, push);
  if (abandoned()) return 'abandoned';
  return completePush(ctx, push, outcome, rng);
}

function log(
  ctx: Ctx,
  push: Pick<PushRow, 'id' | 'leadId' | 'kind'>,
  outcome: 'succeeded' | 'retrying' | 'failed',
  detail: string,
  contactId: string | null,
): void {
  crmStore.insertLog(ctx.db, {
    id: newSortableId('crl'),
    direction: 'push',
    kind: push.kind,
    leadId: push.leadId,
    pushId: push.id,
    contactId,
    outcome,
    detail,
    at: ctx.clock.now(),
  });
}

/** Words for an unexpected failure; never a stack. */
function messageOf(err: unknown): string {
  return err instanceof Error ? err.message.slice(0, 200) : 'unknown error';
}
