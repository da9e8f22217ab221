import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { auditSafety } from '../../src/core/safety/audit.js';
import { MAILBOX_WARM_UP, mailboxLimitOn, mailboxReadiness } from '../../src/core/safety/mailbox.js';
import { findMailbox, insertEmailSend, lastSendAt, mailboxSentOnDay, mailboxSentOnDays, settleEmailSend } from '../../src/core/mailboxes/store.js';
import { resolveSafety } from '../../src/core/safety/rules.js';
import { RELAXED_LIMITS, startTestServer, testCtx, type TestServer } from '../helpers.js';
import { startTestSmtp, type TestSmtp } from './smtp-fixture.js';

const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;

describe('mailboxes over REST', () => {
  let server: TestServer;
  let smtp: TestSmtp;
  const lines: string[] = [];

  beforeAll(async () => {
    process.env.OUTREACH_TEST_SMTP_PASSWORD = PASSWORD;
    process.env.OUTREACH_TEST_WRONG_PASSWORD = 'not it';
    smtp = await startTestSmtp({ user: 'ada@outreach.test', password: PASSWORD });
    server = await startTestServer({ limits: RELAXED_LIMITS });
    // Every log line the server writes while it handles the mailboxes, to look for the password.
    server.ctx.log = createLogger(
      'trace',
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    await smtp.close();
  });

  const smtpOf = (passwordEnv: string) => ({ host: '127.0.0.1', port: smtp.port, secure: false, user: 'ada@outreach.test', passwordEnv });

  it('connects a mailbox once the SMTP server accepts its login, and never returns the password', async () => {
    const res = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Ada',
        address: 'Ada@Outreach.test',
        fromName: 'Ada Lovelace',
        smtp: smtpOf('OUTREACH_TEST_SMTP_PASSWORD'),
        dailyLimit: 40,
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const m = res.body.mailbox;
    expect(m).toMatchObject({
      id: expect.stringMatching(/^mbx_/),
      address: 'ada@outreach.test',
      smtp: { host: '127.0.0.1', port: smtp.port, secure: false, user: 'ada@outreach.test', passwordEnv: 'OUTREACH_TEST_SMTP_PASSWORD' },
      imap: null,
      sim: false,
      dailyLimit: 40,
      status: 'connected',
      warmUp: { day: 1, days: MAILBOX_WARM_UP.days },
      today: { sent: 0, limit: MAILBOX_WARM_UP.start },
    });
    expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    const listed = await server.rest('/mailboxes');
    expect(listed.status).toBe(200);
    expect(listed.body.mailboxes.map((x: { address: string }) => x.address)).toContain('ada@outreach.test');
    expect(JSON.stringify(listed.body)).not.toContain(PASSWORD);
    // Not in the database either: only the variable's name is.
    const raw = JSON.stringify(server.ctx.db.$client.prepare('SELECT * FROM mailboxes').all());
    expect(raw).toContain('OUTREACH_TEST_SMTP_PASSWORD');
    expect(raw).not.toContain(PASSWORD);
  });

  it('a refused login is 422 mailbox_login_failed naming the server, and nothing is stored', async () => {
    const before = server.ctx.db.$client.prepare('SELECT count(*) AS n FROM mailboxes').get() as { n: number };
    const res = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'Wrong', address: 'wrong@outreach.test', smtp: smtpOf('OUTREACH_TEST_WRONG_PASSWORD') }),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('mailbox_login_failed');
    expect(res.body.error.message).toContain('127.0.0.1');
    expect(res.body.error.details).toMatchObject({ server: 'smtp', host: '127.0.0.1' });
    expect(server.ctx.db.$client.prepare('SELECT count(*) AS n FROM mailboxes').get()).toEqual(before);
  });

  it('an unset password variable is mailbox_login_failed saying the variable is not set, not that the server refused', async () => {
    const res = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'Unset', address: 'unset@outreach.test', smtp: smtpOf('OUTREACH_TEST_NOT_SET_ANYWHERE') }),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('mailbox_login_failed');
    expect(res.body.error.message).toBe(
      'The SMTP password for 127.0.0.1 is not set: start the server with the environment variable OUTREACH_TEST_NOT_SET_ANYWHERE set, then retry.',
    );
    expect(res.body.error.details).toMatchObject({ server: 'smtp', host: '127.0.0.1', passwordEnv: 'OUTREACH_TEST_NOT_SET_ANYWHERE' });
  });

  it('PATCH changes limits and pauses; a server change is logged in to first', async () => {
    const { body } = await server.rest('/mailboxes?limit=100');
    const id = body.mailboxes.find((x: { address: string }) => x.address === 'ada@outreach.test').id;
    const paused = await server.rest(`/mailboxes/${id}`, { method: 'PATCH', body: JSON.stringify({ dailyLimit: 80, warmUp: false, active: false }) });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ dailyLimit: 80, warmUp: null, status: 'paused', today: { limit: 80 } });
    const refused = await server.rest(`/mailboxes/${id}`, { method: 'PATCH', body: JSON.stringify({ smtp: smtpOf('OUTREACH_TEST_WRONG_PASSWORD') }) });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('mailbox_login_failed');
    // The refused change left the stored servers as they were.
    expect(findMailbox(server.ctx, id)?.smtpPasswordEnv).toBe('OUTREACH_TEST_SMTP_PASSWORD');
    const resumed = await server.rest(`/mailboxes/${id}`, { method: 'PATCH', body: JSON.stringify({ active: true }) });
    expect(resumed.body.status).toBe('connected');
    const empty = await server.rest(`/mailboxes/${id}`, { method: 'PATCH', body: JSON.stringify({}) });
    expect(empty.status).toBe(400);
    expect((await server.rest('/mailboxes/mbx_nope', { method: 'PATCH', body: JSON.stringify({ dailyLimit: 5 }) })).status).toBe(404);
  });

  it('no log line carried the password', () => {
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).not.toContain(PASSWORD);
  });

  it('a simulated mailbox is development only, and has no servers', async () => {
    const sim = await server.rest('/mailboxes', { method: 'POST', body: JSON.stringify({ name: 'Sim', address: 'sim-box@outreach.test', sim: true }) });
    expect(sim.status).toBe(200);
    expect(sim.body.mailbox).toMatchObject({ sim: true, smtp: null, imap: null });
    const both = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'Both', address: 'both@outreach.test', sim: true, smtp: smtpOf('X') }),
    });
    expect(both.status).toBe(400);
    // The same address and servers again is the same mailbox; other servers for it are a conflict.
    const again = await server.rest('/mailboxes', { method: 'POST', body: JSON.stringify({ name: 'Again', address: 'sim-box@outreach.test', sim: true }) });
    expect(again.status).toBe(200);
    expect(again.body.mailbox.id).toBe(sim.body.mailbox.id);
    const other = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'Other', address: 'sim-box@outreach.test', smtp: smtpOf('X') }),
    });
    expect(other.status).toBe(409);
    const refused = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({ name: 'No', address: 'sim-login-fails@outreach.test', sim: true }),
    });
    expect(refused.status).toBe(422);
  });
});

describe('mailbox sending rules', () => {
  const safety = resolveSafety({ workingHours: null });

  it('warms up from the start to the daily limit over the schedule, then holds it', () => {
    const row = { id: 'mbx_a', dailyLimit: 50, warmUpStartedAt: 0, timeZone: null, workingHours: null };
    const limits = Array.from({ length: MAILBOX_WARM_UP.days + 3 }, (_, d) => mailboxLimitOn(row, d * DAY + 1000));
    expect(limits[0]).toBe(MAILBOX_WARM_UP.start);
    for (let d = 1; d < limits.length; d++) expect(limits[d]).toBeGreaterThanOrEqual(limits[d - 1]!);
    expect(limits[MAILBOX_WARM_UP.days]).toBe(50);
    expect(limits.at(-1)).toBe(50);
    // A mailbox whose limit is below the start never sends more than its limit.
    expect(mailboxLimitOn({ ...row, dailyLimit: 4 }, 0)).toBe(4);
    expect(mailboxLimitOn({ ...row, warmUpStartedAt: null }, 0)).toBe(50);
  });

  it('readiness waits for the daily limit, the spacing and the hours; the auditor flags sends that broke them', () => {
    const ctx = testCtx();
    const now = ctx.simClock.now();
    const row = findMailbox(ctx, 'mbx_sales')!;
    expect(mailboxReadiness(ctx, row, safety, now)).toEqual({ ready: true });
    let n = 0;
    const send = (at: number) =>
      insertEmailSend(ctx, {
        id: `es_${++n}`,
        messageId: `<m${n}@outreach.test>`,
        mailboxId: row.id,
        leadId: 'lead_x',
        campaignId: 'cmp_q4',
        address: 'x@example.com',
        subject: 's',
        state: 'sent',
        at,
      });
    send(now);
    expect(mailboxReadiness(ctx, row, safety, now + 1000)).toEqual({ ready: false, reason: 'spacing', until: now + row.spacingSeconds * 1000 });
    expect(auditSafety(ctx, { safety, spacingMinMs: 0 }).violations).toEqual([]);
    // A send too soon after the previous one breaks the spacing.
    send(now + 1000);
    const rules = auditSafety(ctx, { safety, spacingMinMs: 0 }).violations.map((v) => `${v.rule} ${v.accountId}`);
    expect(rules).toEqual(['mailbox_spacing mbx_sales']);
    const capped = { ...row, dailyLimit: 2 };
    expect(mailboxReadiness(ctx, capped, safety, now + 2 * 3_600_000)).toMatchObject({ ready: false, reason: 'daily_limit' });
    const weekdays = resolveSafety({ workingHours: { start: '09:00', end: '10:00', days: ['mon'] } });
    const r = mailboxReadiness(ctx, { ...row, id: 'mbx_other' }, weekdays, Date.parse('2026-11-24T12:00:00Z'));
    expect(r).toMatchObject({ ready: false, reason: 'hours' });
  });

  it('a failed send counts toward neither the day nor the spacing; the last send is the newest that did not fail', () => {
    const ctx = testCtx();
    const now = ctx.simClock.now();
    const row = findMailbox(ctx, 'mbx_sales')!;
    const send = (n: number, at: number, state: 'sent' | 'failed' | 'sending') =>
      insertEmailSend(ctx, {
        id: `es_${n}`,
        messageId: `<f${n}@outreach.test>`,
        mailboxId: row.id,
        leadId: 'lead_x',
        campaignId: 'cmp_q4',
        address: 'x@example.com',
        subject: 's',
        state,
        at,
      });
    expect(lastSendAt(ctx, row.id)).toBeNull();
    send(1, now - 3_600_000, 'sent');
    send(2, now - 60_000, 'sending');
    send(3, now - 1000, 'failed');
    expect(lastSendAt(ctx, row.id)).toBe(now - 60_000);
    expect(mailboxSentOnDay(ctx, row.id, now)).toBe(2);
    expect(mailboxSentOnDay(ctx, row.id, now + DAY)).toBe(0);
    expect(mailboxSentOnDay(ctx, 'mbx_other', now)).toBe(0);
    // The spacing runs from the send on its way, not from the failed one after it.
    expect(mailboxReadiness(ctx, row, safety, now)).toEqual({ ready: false, reason: 'spacing', until: now - 60_000 + row.spacingSeconds * 1000 });
  });

  it("keeps the day's count with the sends: a send that fails is taken off its day, each mailbox and day apart", () => {
    const ctx = testCtx();
    const now = ctx.simClock.now();
    const send = (id: string, mailboxId: string, at: number) =>
      insertEmailSend(ctx, {
        id,
        messageId: `<${id}@outreach.test>`,
        mailboxId,
        leadId: 'lead_x',
        campaignId: 'cmp_q4',
        address: 'x@example.com',
        subject: 's',
        state: 'sending',
        at,
      });
    send('es_a', 'mbx_sales', now);
    send('es_b', 'mbx_sales', now + 1000);
    send('es_c', 'mbx_sales', now + DAY);
    send('es_d', 'mbx_other', now);
    expect(mailboxSentOnDays(ctx, ['mbx_sales', 'mbx_other', 'mbx_none'], now)).toEqual(
      new Map([
        ['mbx_sales', 2],
        ['mbx_other', 1],
      ]),
    );
    settleEmailSend(ctx, 'es_a', { state: 'sent' });
    expect(mailboxSentOnDay(ctx, 'mbx_sales', now)).toBe(2);
    settleEmailSend(ctx, 'es_b', { state: 'failed', error: 'refused' });
    expect(mailboxSentOnDay(ctx, 'mbx_sales', now)).toBe(1);
    // Settled as failed again, it is not taken off twice; settled as sent after all, it counts again.
    settleEmailSend(ctx, 'es_b', { state: 'failed', error: 'refused' });
    expect(mailboxSentOnDay(ctx, 'mbx_sales', now)).toBe(1);
    settleEmailSend(ctx, 'es_b', { state: 'sent' });
    expect(mailboxSentOnDay(ctx, 'mbx_sales', now)).toBe(2);
    expect(mailboxSentOnDay(ctx, 'mbx_sales', now + DAY)).toBe(1);
    // The count is what the sends say, day by day.
    const counted = ctx.db.$client
      .prepare(
        "SELECT mailbox_id AS mailboxId, date(at / 1000, 'unixepoch') AS day, count(*) AS sent FROM email_sends WHERE state != 'failed' GROUP BY 1, 2 ORDER BY 1, 2",
      )
      .all();
    expect(ctx.db.$client.prepare('SELECT mailbox_id AS mailboxId, day, sent FROM mailbox_daily ORDER BY 1, 2').all()).toEqual(counted);
  });
});

describe('a slow SMTP server', () => {
  it('a login check that times out is upstream_unavailable, not a refused login, and adds nothing', async () => {
    const { SmtpMail } = await import('../../src/network/mail/smtp.js');
    const { connectMailbox } = await import('../../src/core/mailboxes/mailbox.js');
    const slow = await startTestSmtp({ user: 'u@outreach.test', password: 'p', greetingDelayMs: 5_000 });
    try {
      const ctx = testCtx();
      ctx.mail = new SmtpMail({ env: { SLOW_PW: 'p' }, timeoutMs: 300 });
      const attempt = connectMailbox(ctx, {
        name: 'Slow',
        address: 'u@outreach.test',
        smtp: { host: '127.0.0.1', port: slow.port, secure: false, user: 'u@outreach.test', passwordEnv: 'SLOW_PW' },
      });
      await expect(attempt).rejects.toMatchObject({ code: 'upstream_unavailable' });
      expect(ctx.db.$client.prepare("SELECT count(*) AS n FROM mailboxes WHERE address = 'u@outreach.test'").get()).toEqual({ n: 0 });
    } finally {
      await slow.close();
    }
  });
});
