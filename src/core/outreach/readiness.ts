import { findAccount, findAccounts, type AccountRow } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { nextWorkingTime } from '../safety/hours.js';
import { allowance, allowancesWith, rhythmOf, weekAllowance, type Allowance, type SafetySettings } from '../safety/rules.js';
import { dayOf, nextUtcDay } from './calendar.js';
import { ACCOUNT_RETRY_MS } from './failures.js';
import { ACTION_KINDS, kindOfSend } from '../steps/registry.js';
import { findMailbox, type MailboxRow } from '../mailboxes/store.js';
import { mailboxReadiness } from '../safety/mailbox.js';
import { capReached, type SendKind } from './plan.js';
import { versionOf } from '../../db/cache.js';
import { intentStatements } from '../../db/sql/intents.js';
import { lastCallAt } from './queue.js';
import type { TickCounters, TouchCount, TouchMemo } from './runner.js';
import type { EngineSettings } from './settings.js';

/**
 * When an account with no invitation left may invite again: tomorrow, or a later day when the
 * rolling week's cap, not today's, is what holds.
 */
export const invitationsFreeAt = (a: Allowance, now: number): number =>
  a.weekFullUntil !== null ? Math.max(a.weekFullUntil, nextUtcDay(now)) : nextUtcDay(now);

/** Whether the account has no invitation left today (warm-up and the rolling week applied). */
export const invitationsLeft = (a: Allowance): number => Math.max(0, a.connectionRequestLimit - a.connectionRequestsSentToday);

/**
 * Why an account cannot send now, and until when:
 * - `unavailable`: not connected, or set inactive by the operator; looked at again later;
 * - `blocked`: the provider refused the account (its quota, a disconnection) until then;
 * - `idle`: out of its working hours, or within the spacing after its last send;
 * - `capped`: today's (or the rolling week's) limit for this kind is reached.
 */
export type AccountWait = { until: number; why: 'unavailable' | 'blocked' | 'idle' | 'capped' };
export type Readiness = { account: AccountRow } | { mailbox: MailboxRow } | AccountWait;

/** What the engine remembers of an account between sends (its memory; see src/workers/outreach/memory.ts). */
export interface AccountPace {
  /** No send before this: the spacing after the last send, or a provider block. */
  notBefore: number;
  blocked: boolean;
}

/**
 * Whether the account may send this kind now, or until when it must wait: it must be connected
 * and active, not blocked by the provider, inside its own working hours, past its spacing, and
 * under today's limits (warm-up and the rolling week applied). `counters` are the account's
 * counters when they were just read for this same instant. Every rule but the spacing's random
 * part reads stored state, so a restart or a pause forgets nothing.
 */
export function accountReadiness(
  ctx: Ctx,
  safety: SafetySettings,
  accountId: string,
  kind: SendKind,
  now: number,
  pace: AccountPace,
  counters?: { at: number; allowance: Allowance },
): Readiness {
  if (kindOfSend(kind)?.channel === 'email') return mailboxLaneReadiness(ctx, safety, accountId, now);
  const account = findAccount(ctx, accountId);
  // An operator's `active: false` stops all sending from the account until it is set back.
  if (account?.status !== 'connected' || !account.active) return { until: now + ACCOUNT_RETRY_MS, why: 'unavailable' };
  if (pace.blocked && pace.notBefore > now) return { until: pace.notBefore, why: 'blocked' };
  const rhythm = rhythmOf(account, safety);
  const idle = Math.max(nextWorkingTime(now, rhythm), pace.blocked ? 0 : pace.notBefore);
  if (idle > now) return { until: idle, why: 'idle' };
  if (kind !== 'withdraw') {
    const a = counters !== undefined && dayOf(counters.at) === dayOf(now) ? counters.allowance : allowance(ctx, account, safety, now);
    // Each kind under its own daily limit: invitations, messages (InMails too), visits, likes.
    if (capReached(kind, a)) return { until: nextWorkingTime(kind === 'connect' ? invitationsFreeAt(a, now) : nextUtcDay(now), rhythm), why: 'capped' };
  }
  return { account };
}

/**
 * Whether a mailbox (the lane of its email steps) may send now, or until when it waits, read as
 * an account's: paused or refused is `unavailable` (looked at again later), out of its hours or
 * within its spacing is `idle`, its daily limit (warm-up applied) reached is `capped`.
 */
export function mailboxLaneReadiness(ctx: Ctx, safety: SafetySettings, mailboxId: string, now: number): Readiness {
  const mailbox = findMailbox(ctx, mailboxId);
  if (!mailbox) return { until: now + ACCOUNT_RETRY_MS, why: 'unavailable' };
  const ready = mailboxReadiness(ctx, mailbox, safety, now);
  if (ready.ready) return { mailbox };
  switch (ready.reason) {
    case 'paused':
    case 'login_failed':
      return { until: now + ACCOUNT_RETRY_MS, why: 'unavailable' };
    case 'daily_limit':
      return { until: ready.until ?? nextUtcDay(now), why: 'capped' };
    default:
      return { until: ready.until ?? now + ACCOUNT_RETRY_MS, why: 'idle' };
  }
}

/** The earliest next send of an account the engine knows nothing about (after a restart): its last recorded call plus the shortest spacing. */
export function firstSendAt(ctx: Ctx, settings: EngineSettings, accountId: string): number {
  const last = lastCallAt(ctx, accountId);
  return last === null ? 0 : last + settings.spacingMinMs;
}

/** The account's next send after one made `now`: a random spacing between the configured bounds. */
export function nextSendAt(settings: EngineSettings, now: number, random: () => number): number {
  const { spacingMinMs: min, spacingMaxMs: max } = settings;
  return now + min + Math.floor(random() * (max - min));
}

/** The average spacing between two sends of an account (at least 1 ms): how far apart deferred sends are put. */
export const averageSpacing = (settings: EngineSettings): number => Math.max(1, Math.round((settings.spacingMinMs + settings.spacingMaxMs) / 2));

/**
 * What the senders' counters are read from: the accounts (their limits, warm-up, status) and
 * their daily counts, as the cache's signal sees them (src/db/cache.ts); a send counted by any
 * writer, or a commit of another connection, moves it. The step kinds' own counts (engine
 * intents of today) are written only by the engine's sends, which count a day too, or by another
 * connection.
 */
export const countersStamp = (ctx: Ctx): string => `${versionOf(ctx.db, 'accounts')}:${versionOf(ctx.db, 'daily')}`;

/**
 * The counters of the accounts that may send (connected and active) at `now`: what
 * accountReadiness would read for each account's first send at that instant. Those in `known`
 * (read earlier in the tick) are taken as they are while nothing they were read from moved and
 * the UTC day is the same; the others are read in one statement.
 */
export function sendingCounters(ctx: Ctx, safety: SafetySettings, accountIds: readonly string[], now: number, known?: TickCounters): Map<string, Allowance> {
  const accounts = [...findAccounts(ctx, accountIds).values()].filter((a) => a.status === 'connected' && a.active);
  return allowancesWith(ctx, accounts, safety, now, stillCurrent(ctx, known, now));
}

/** The counters of `known`, when reading them again at `now` would give the same: same UTC day, and nothing they came from moved. */
function stillCurrent(ctx: Ctx, known: TickCounters | undefined, now: number): ReadonlyMap<string, Allowance> | undefined {
  return known !== undefined && dayOf(known.at) === dayOf(now) && known.stamp === countersStamp(ctx) ? known.byAccount : undefined;
}

const WEEK_DAYS = 7;
/** The send records of the kinds that touch a lead ahead of its invitation (src/core/steps/: a visit, a like). */
const TOUCH_INTENTS = JSON.stringify(ACTION_KINDS.filter((k) => (k as { touch?: boolean }).touch === true).map((k) => k.intent));

/**
 * Pacing of the touches before an invitation (a step whose kind is a touch, `visit` or `like_post`, of a lead not invited
 * yet, whose agent invites): they go only while the leads the account touched this rolling week
 * and has not invited yet are fewer than the invitations it may still send this week (its weekly
 * cap, less what it sent). Without it, visits ran days ahead of invitations the account could no
 * longer send. Returns null when the touch may go, else when to look again: the next day's
 * working time, when the week has moved on and the day's invitations have gone. `memo` keeps
 * the account's count for the rest of the engine's tick; the week is taken from `known` (the
 * tick's counters) while they are still current.
 */
export function touchWait(
  ctx: Ctx,
  safety: SafetySettings,
  accountId: string,
  leadId: string,
  now: number,
  memo?: TouchMemo,
  known?: TickCounters,
): number | null {
  const account = findAccount(ctx, accountId);
  if (!account) return null;
  let count = memo?.get(accountId);
  if (count === undefined) {
    count = touchCount(ctx, account, safety, now, stillCurrent(ctx, known, now)?.get(accountId)?.week);
    memo?.set(accountId, count);
  }
  // No invitation left this week: no touch may go ahead, whatever the count (most touch checks
  // late in a week end here). Else the leads ahead other than this one only need to reach what
  // is left: read up to one more than that, they reach it exactly when the read does, less this
  // lead when it is among them.
  if (count.weekLeft > 0 && count.ahead.size - (count.ahead.has(leadId) ? 1 : 0) < count.weekLeft) return null;
  return nextWorkingTime(nextUtcDay(now), rhythmOf(account, safety));
}

function touchCount(ctx: Ctx, account: AccountRow, safety: SafetySettings, now: number, known?: Allowance['week']): TouchCount {
  const week = known ?? weekAllowance(ctx, account, safety, now);
  const weekLeft = Math.max(0, week.connectionRequestLimit - week.connectionRequestsSent);
  if (weekLeft === 0) return { weekLeft, ahead: NONE };
  const from = nextUtcDay(now) - WEEK_DAYS * 86_400_000;
  const ahead = intentStatements(ctx.db).touchedNotInvited.all({ account: account.id, from, kinds: TOUCH_INTENTS, upTo: weekLeft + 1 });
  return { weekLeft, ahead: new Set(ahead) };
}

const NONE: ReadonlySet<string> = new Set();
