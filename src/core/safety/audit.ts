import { utcDay } from '../clock.js';
import type { Ctx } from '../context.js';
import { approvedDraftsWaiting } from '../drafts/store.js';
import { insideHours, localDayNumber, windowOn } from './hours.js';
import { allMailboxes } from '../mailboxes/store.js';
import { auditMailbox, type MailboxViolation } from './mailbox.js';
import { dailyLimits, hoursOf, LOCK_STEP_MIN_CALLS, ownDailyLimits, rhythmOf, type SafetySettings } from './rules.js';
import { OWN_LIMITS } from '../steps/registry.js';
import { accountDailyRowsOf, accountRowsInOrder, type AccountRow, engineActivityOf, intentsInOrderExcept, intentsOfKinds, intentTimesOf } from './store.js';

const DAY = 86_400_000;
const dayStart = (ms: number): number => ms - (((ms % DAY) + DAY) % DAY);

export type SafetyRule =
  | 'daily_connection_cap'
  | 'weekly_connection_cap'
  | 'daily_message_cap'
  | 'daily_visit_cap'
  | 'daily_reaction_cap'
  | 'working_hours'
  | 'spacing'
  | 'lock_step'
  | 'approved_draft_overdue'
  /** A limit a step kind declares of its own (src/core/steps/), e.g. `daily_endorsements_cap`. */
  | `daily_${string}_cap`
  | MailboxViolation['rule'];

export interface Violation {
  rule: SafetyRule;
  /** The sender: an account id, or a mailbox id (`mbx_…`) for a mailbox rule. */
  accountId: string;
  /** The UTC day (`YYYY-MM-DD`) the breach belongs to. */
  day: string;
  detail: string;
}

export interface AuditReport {
  violations: Violation[];
  accounts: number;
  /** Account-days with at least one send. */
  accountDays: number;
  /** Provider calls replayed (every engine send, withdrawal or failed attempt). */
  calls: number;
}

export interface AuditOptions {
  safety: SafetySettings;
  /** The shortest pause the engine is configured to leave between two calls of one account. */
  spacingMinMs: number;
  /**
   * Accounts that share a day's sequence of send minutes (at least this many sends) are in
   * lock-step. Default 3.
   */
  lockStepMinSends?: number;
}

/** Outbound engine activity that counts against the daily message limit. */
const MESSAGE_TYPES = ['message_sent', 'agent_replied', 'cta_sent'] as const;

interface DayCount {
  connections: number;
  messages: number;
  visits: number;
  reactions: number;
}

/** Engine send records of a profile visit (a sequence's `visit` step) that reached the provider. */
const VISIT_INTENT = 'visit';
const PERFORMED = ['sent', 'assumed_sent'];

/**
 * Replays the activity log and the engine's send records and checks, per account, per UTC day
 * and per rolling week, every rule that protects an account: the daily and weekly invitation
 * caps, the daily message cap (InMails are messages), the daily profile-visit and post-reaction
 * caps (warm-up applied to each), working hours in the account's own zone,
 * the minimum spacing between two provider calls, and that no two accounts send in lock-step;
 * and, per mailbox, its daily email limit (warm-up applied), working hours and spacing.
 * Limits are the accounts' current ones. Reads only; safe on a live database.
 */
export function auditSafety(ctx: Ctx, opts: AuditOptions): AuditReport {
  const { safety } = opts;
  const minLockStep = opts.lockStepMinSends ?? LOCK_STEP_MIN_CALLS;
  const violations: Violation[] = [];
  const rows = accountRowsInOrder(ctx);
  let accountDays = 0;
  let calls = 0;
  /** Per UTC day: a day's minute-signature to the first account with it. */
  const signatures = new Map<string, Map<string, string>>();

  for (const account of rows) {
    const counts = new Map<string, DayCount>();
    const bump = (day: string, key: keyof DayCount, n = 1) => {
      const c = counts.get(day) ?? { connections: 0, messages: 0, visits: 0, reactions: 0 };
      c[key] += n;
      counts.set(day, c);
    };
    // What the activity log says the engine sent.
    const sent = engineActivityOf(ctx, account.id, ['connection_request_sent', ...MESSAGE_TYPES]);
    for (const e of sent) bump(utcDay(e.at), e.type === 'connection_request_sent' ? 'connections' : 'messages');
    // Visits the engine's send records show made. A like may find no post, so likes are read from the counters alone.
    const visits = intentTimesOf(ctx, account.id, VISIT_INTENT, PERFORMED);
    for (const v of visits) bump(utcDay(v.at), 'visits');
    // The stored counters also hold seeded and manual sends, which the engine's caps count too.
    for (const d of accountDailyRowsOf(ctx, account.id)) {
      const c = counts.get(d.day) ?? { connections: 0, messages: 0, visits: 0, reactions: 0 };
      counts.set(d.day, {
        connections: Math.max(c.connections, d.connectionRequestsSent),
        messages: Math.max(c.messages, d.messagesSent),
        visits: Math.max(c.visits, d.profileVisits),
        reactions: Math.max(c.reactions, d.postReactions),
      });
    }

    const weekly = account.weeklyConnectionRequestLimit ?? safety.weeklyConnectionRequestLimit;
    const warmUpIndex = (dayMs: number): number | null => {
      const index = account.warmUpStartedAt === null ? safety.warmUp.days : Math.floor((dayMs - dayStart(account.warmUpStartedAt)) / DAY);
      // Days before the warm-up began (one started later by update_account) ran at full limits.
      return index < 0 ? null : index;
    };
    const limitsOn = (dayMs: number) => dailyLimits(account, safety, warmUpIndex(dayMs));
    // The limits step kinds declare of their own: their send records that reached the provider, per UTC day.
    if (OWN_LIMITS.length > 0) {
      const own = new Map<string, Map<string, number>>();
      const performed = intentsOfKinds(
        ctx,
        account.id,
        OWN_LIMITS.map((l) => l.intent),
        PERFORMED,
      );
      for (const p of performed) {
        const day = utcDay(p.at);
        const byKind = own.get(day) ?? new Map<string, number>();
        byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + 1);
        own.set(day, byKind);
      }
      for (const [day, byKind] of own) {
        for (const l of ownDailyLimits(safety, warmUpIndex(Date.parse(`${day}T00:00:00Z`)))) {
          const n = byKind.get(l.intent) ?? 0;
          if (n > l.limit) violations.push({ rule: `daily_${l.name}_cap`, accountId: account.id, day, detail: `${n} ${l.label}, limit ${l.limit}` });
        }
      }
    }
    for (const [day, c] of counts) {
      const dayMs = Date.parse(`${day}T00:00:00Z`);
      const limit = limitsOn(dayMs);
      if (c.connections > limit.connections)
        violations.push({
          rule: 'daily_connection_cap',
          accountId: account.id,
          day,
          detail: `${c.connections} connection requests, limit ${limit.connections}`,
        });
      if (c.messages > limit.messages)
        violations.push({ rule: 'daily_message_cap', accountId: account.id, day, detail: `${c.messages} messages, limit ${limit.messages}` });
      if (c.visits > limit.visits)
        violations.push({ rule: 'daily_visit_cap', accountId: account.id, day, detail: `${c.visits} profile visits, limit ${limit.visits}` });
      if (c.reactions > limit.reactions)
        violations.push({ rule: 'daily_reaction_cap', accountId: account.id, day, detail: `${c.reactions} post reactions, limit ${limit.reactions}` });
      let week = 0;
      for (let k = 0; k < 7; k++) week += counts.get(utcDay(dayMs - k * DAY))?.connections ?? 0;
      if (week > weekly)
        violations.push({
          rule: 'weekly_connection_cap',
          accountId: account.id,
          day,
          detail: `${week} connection requests in the 7 days to ${day}, limit ${weekly}`,
        });
    }

    // Every provider call the engine made (an operator's manual sends aside), in order: hours, spacing and the day's rhythm.
    const { hours, timeZone } = hoursOf(account, safety);
    const intents = intentsInOrderExcept(ctx, account.id, 'manual_message');
    calls += intents.length;
    let previous: number | null = null;
    const minutesByDay = new Map<string, number[]>();
    for (const intent of intents) {
      const day = utcDay(intent.at);
      if (!insideHours(intent.at, hours, timeZone)) {
        violations.push({
          rule: 'working_hours',
          accountId: account.id,
          day,
          detail: `${intent.kind} at ${new Date(intent.at).toISOString()} outside working hours (${timeZone})`,
        });
      }
      if (previous !== null && intent.at - previous < opts.spacingMinMs) {
        violations.push({
          rule: 'spacing',
          accountId: account.id,
          day,
          detail: `${intent.kind} ${Math.round((intent.at - previous) / 1000)} s after the previous call, minimum ${opts.spacingMinMs / 1000} s`,
        });
      }
      previous = intent.at;
      const list = minutesByDay.get(day) ?? [];
      list.push(Math.floor(intent.at / 60_000));
      minutesByDay.set(day, list);
    }
    accountDays += minutesByDay.size;
    for (const [day, minutes] of minutesByDay) {
      if (minutes.length < minLockStep) continue;
      const signature = minutes.join(',');
      const seen = signatures.get(day) ?? new Map<string, string>();
      const twin = seen.get(signature);
      if (twin !== undefined)
        violations.push({ rule: 'lock_step', accountId: account.id, day, detail: `sent at the very same minutes as ${twin} (${minutes.length} calls)` });
      else seen.set(signature, account.id);
      signatures.set(day, seen);
    }
  }
  violations.push(...overdueApprovedDrafts(ctx, rows, safety));
  // Each mailbox's sends against its own limit, warm-up, hours and spacing.
  for (const mailbox of allMailboxes(ctx)) {
    for (const v of auditMailbox(ctx, mailbox, safety)) violations.push({ rule: v.rule, accountId: v.mailboxId, day: v.day, detail: v.detail });
  }
  return { violations, accounts: rows.length, accountDays, calls };
}

/**
 * The close of the sender's next working window after `at`: the first window (jitter included,
 * as the engine keeps it) that opens after `at`. An approved draft must be sent or skipped by then.
 */
export function nextWindowClose(account: AccountRow, safety: SafetySettings, at: number): number {
  const rhythm = rhythmOf(account, safety);
  const first = localDayNumber(at, rhythm.timeZone);
  for (let day = first; day <= first + 9; day++) {
    const w = windowOn(day, rhythm);
    if (w && w.open > at) return w.close;
  }
  return at + 9 * DAY;
}

/**
 * No approved draft outlives its sender's next working window: every draft approved (not on
 * the wire) whose sender's next window after its approval has closed, while the sender was
 * connected and active and its campaign ran, is a violation. A draft waiting on a sender that
 * is disconnected or paused, or in a paused campaign, waits as its lead does.
 */
function overdueApprovedDrafts(ctx: Ctx, rows: readonly AccountRow[], safety: SafetySettings): Violation[] {
  const now = ctx.simClock.now();
  const byId = new Map(rows.map((a) => [a.id, a]));
  const approved = approvedDraftsWaiting(ctx);
  const out: Violation[] = [];
  for (const d of approved) {
    const account = d.accountId === null ? undefined : byId.get(d.accountId);
    if (!account || d.approvedAt === null || account.status !== 'connected' || !account.active) continue;
    const deadline = nextWindowClose(account, safety, d.approvedAt);
    if (now > deadline)
      out.push({
        rule: 'approved_draft_overdue',
        accountId: account.id,
        day: utcDay(deadline),
        detail: `draft ${d.id} approved at ${new Date(d.approvedAt).toISOString()} is still approved after its sender's next working window closed (${new Date(deadline).toISOString()})`,
      });
  }
  return out;
}
