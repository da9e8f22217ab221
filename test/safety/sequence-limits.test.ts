import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countAccountDaily } from '../../src/core/activity/record.js';
import { findAccountView } from '../../src/core/accounts/list.js';
import { connectAccount, updateAccount } from '../../src/core/accounts/manage.js';
import { FakeClock, utcDay } from '../../src/core/clock.js';
import { auditSafety } from '../../src/core/safety/audit.js';
import { allowance, resolveSafety } from '../../src/core/safety/rules.js';
import { accountDaily, accounts, engineIntents } from '../../src/db/schema.js';
import { callTool, RELAXED_LIMITS, startTestServer, testCtx, type TestServer } from '../helpers.js';

const MONDAY = Date.parse('2026-11-23T00:00:00Z');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const dayOf = (i: number) => utcDay(MONDAY + i * DAY);

/** Sets an account's counters for a day, over whatever the fixture seeded. */
function setDay(ctx: ReturnType<typeof testCtx>, accountId: string, day: string, values: Partial<typeof accountDaily.$inferInsert>): void {
  ctx.db
    .insert(accountDaily)
    .values({ accountId, day, ...values })
    .onConflictDoUpdate({ target: [accountDaily.accountId, accountDaily.day], set: values })
    .run();
}

/** Visits and likes (a sequence's visit and like_post steps) have their own daily limits; InMails are messages. */
describe('daily limits of the sequence actions', () => {
  it('default to 40 visits and 30 likes, settable, warmed up with the rest, and shown in today and limits', async () => {
    const ctx = testCtx({ clock: new FakeClock(MONDAY + 10 * HOUR) });
    const { account } = await connectAccount(ctx, { name: 'New' });
    expect(account.limits).toMatchObject({ profileVisitLimit: 40, postReactionLimit: 30 });
    // Day 1 of the warm-up: 10 visits and 5 likes.
    expect(account.today).toMatchObject({ profileVisits: 0, profileVisitLimit: 10, postReactions: 0, postReactionLimit: 5 });
    countAccountDaily(ctx, account.id, 'profileVisits');
    countAccountDaily(ctx, account.id, 'postReactions');
    countAccountDaily(ctx, account.id, 'postReactions');
    expect(findAccountView(ctx, account.id)!.today).toMatchObject({ profileVisits: 1, postReactions: 2 });
    const ended = updateAccount(ctx, account.id, { warmUp: false, profileVisitLimit: 60, postReactionLimit: 12 });
    expect(ended.today).toMatchObject({ profileVisitLimit: 60, postReactionLimit: 12 });
    expect(ended.limits).toMatchObject({ profileVisitLimit: 60, postReactionLimit: 12 });
    const row = ctx.db
      .select()
      .from(accounts)
      .all()
      .find((a) => a.id === account.id)!;
    expect(allowance(ctx, row, resolveSafety(), ctx.simClock.now())).toMatchObject({
      profileVisitLimit: 60,
      postReactionLimit: 12,
      profileVisitsToday: 1,
      postReactionsToday: 2,
    });
    const fast = (await connectAccount(ctx, { name: 'Set', warmUp: false, profileVisitLimit: 100, postReactionLimit: 50 })).account;
    expect(fast.today).toMatchObject({ profileVisitLimit: 100, postReactionLimit: 50 });
  });

  it('the auditor finds visits and likes over their caps, and InMails over the message cap', () => {
    const ctx = testCtx({ clock: new FakeClock(MONDAY) });
    const db = ctx.db;
    // acc_ada: 41 visits on Monday (cap 40), 31 likes on Tuesday (cap 30), 51 messages on Wednesday.
    setDay(ctx, 'acc_ada', dayOf(0), { profileVisits: 41 });
    setDay(ctx, 'acc_ada', dayOf(1), { postReactions: 31 });
    setDay(ctx, 'acc_ada', dayOf(2), { messagesSent: 51, profileVisits: 40, postReactions: 30 });
    // acc_nav: the counter says 3 visits on Thursday, the send records 41 (every minute from 09:00): the records win.
    setDay(ctx, 'acc_nav', dayOf(3), { profileVisits: 3 });
    for (let i = 0; i < 41; i++) {
      db.insert(engineIntents)
        .values({
          id: `int_v${i}`,
          leadId: `l${i}`,
          campaignId: 'cmp_q4',
          accountId: 'acc_nav',
          kind: 'visit',
          state: i === 40 ? 'failed' : 'sent',
          holder: 'x',
          createdAt: MONDAY + 3 * DAY + 9 * HOUR + i * 120_000,
        })
        .run();
    }
    db.insert(engineIntents)
      .values({
        id: 'int_v41',
        leadId: 'l41',
        campaignId: 'cmp_q4',
        accountId: 'acc_nav',
        kind: 'visit',
        state: 'assumed_sent',
        holder: 'x',
        createdAt: MONDAY + 3 * DAY + 12 * HOUR,
      })
      .run();
    const safety = resolveSafety({ workingHours: null });
    const report = auditSafety(ctx, { safety, spacingMinMs: 60_000 });
    expect(report.violations.map((v) => `${v.accountId} ${v.day} ${v.rule} ${v.detail}`).sort()).toEqual(
      [
        `acc_ada ${dayOf(0)} daily_visit_cap 41 profile visits, limit 40`,
        `acc_ada ${dayOf(1)} daily_reaction_cap 31 post reactions, limit 30`,
        `acc_ada ${dayOf(2)} daily_message_cap 51 messages, limit 50`,
        `acc_nav ${dayOf(3)} daily_visit_cap 41 profile visits, limit 40`,
      ].sort(),
    );
  });

  it("holds a warming account to the day's visit and like limits", () => {
    const ctx = testCtx({ clock: new FakeClock(MONDAY) });
    ctx.db.update(accounts).set({ warmUpStartedAt: MONDAY }).run();
    setDay(ctx, 'acc_ada', dayOf(0), { profileVisits: 11, postReactions: 5 });
    const report = auditSafety(ctx, { safety: resolveSafety({ workingHours: null }), spacingMinMs: 60_000 });
    expect(report.violations.filter((v) => v.accountId === 'acc_ada').map((v) => v.detail)).toEqual(['11 profile visits, limit 10']);
  });
});

describe('the new limits over REST and MCP', () => {
  let server: TestServer;
  let mcp: Client;
  beforeAll(async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    mcp = await server.mcp(undefined, 'toolsets=manage');
  });
  afterAll(() => server.close());

  it('connect_account and update_account take them; list_accounts shows them; bounds are checked', async () => {
    const send = (path: string, body: unknown, method = 'POST') => server.rest(path, { method, body: JSON.stringify(body) });
    const c = await send('/accounts', { name: 'Visits', warmUp: false, profileVisitLimit: 80, postReactionLimit: 20 });
    expect(c.status).toBe(200);
    expect(c.body.account.today).toMatchObject({ profileVisits: 0, profileVisitLimit: 80, postReactions: 0, postReactionLimit: 20 });
    const id = c.body.account.id as string;
    const u = await callTool(mcp, 'update_account', { accountId: id, profileVisitLimit: 90 });
    expect(u.body.limits).toMatchObject({ profileVisitLimit: 90, postReactionLimit: 20 });
    expect((await send(`/accounts/${id}`, { profileVisitLimit: 151 }, 'PATCH')).body.error.details.fields).toEqual(['profileVisitLimit']);
    expect((await send(`/accounts/${id}`, { postReactionLimit: 0 }, 'PATCH')).body.error.details.fields).toEqual(['postReactionLimit']);
    const listed = (await server.rest('/accounts?limit=100')).body.accounts.find((a: { id: string }) => a.id === 'acc_ada');
    expect(listed.today).toMatchObject({ profileVisits: 0, profileVisitLimit: 40, postReactions: 0, postReactionLimit: 30 });
  });
});
