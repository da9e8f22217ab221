// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoginToken } from '../../src/core/auth/sessions.js';
import { recordMessage } from '../../src/core/conversations/record.js';
import { readMailbox } from '../../src/core/email/inbox.js';
import { sendEmail } from '../../src/core/email/send.js';
import { addLead } from '../../src/core/leads/add.js';
import { listMailboxes } from '../../src/core/mailboxes/mailbox.js';
import { addMember } from '../../src/core/members/members.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { startTestSmtp, type TestSmtp } from '../email/smtp-fixture.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, screenshotDir, seriousViolations } from './browser.js';

const PASSWORD = 'the right one';
const HOUR = 3_600_000;

/**
 * The email channel in the dashboard, in Chromium against the real server: the Mailboxes page
 * lists, connects (a simulated mailbox; a refused login from an smtp-server of our own, named
 * in the alert) and edits a mailbox, for the roles that may; the inbox shows an email thread
 * beside the LinkedIn ones, marked by channel. Every page passes axe-core.
 */
describe.runIf(requireTool('Chromium at /usr/bin/chromium', hasChromium))('email in the dashboard', () => {
  let server: TestServer;
  let smtp: TestSmtp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let viewerId: string;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-email-ui-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const expectAccessible = async (p: Page = page) => expect(await seriousViolations(p)).toEqual([]);
  const heading = (name: string, p: Page = page) => p.getByRole('heading', { level: 1, name }).waitFor();
  const mailboxesOf = () => listMailboxes(server.ctx, 'secret', { limit: 100 }).mailboxes;

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    process.env.OUTREACH_UI_WRONG_PASSWORD = 'not the right one';
    smtp = await startTestSmtp({ user: 'bob@outreach.test', password: PASSWORD });
    server = await startTestServer();
    server.ctx.publicUrl = server.url;
    // The first member is the owner; the viewer comes second.
    addMember(server.ctx, { name: 'Olga Owner', email: 'olga@example.com' });
    viewerId = addMember(server.ctx, { name: 'Vera Viewer', email: 'vera@example.com', role: 'viewer' }).id;

    // An email to a lead who answers an hour later (the simulator's marker), read as the mail poller reads it.
    const settings = resolveEngineSettings({ workingHours: null });
    server.ctx.safety = settings.safety;
    const { leadId } = addLead(server.ctx, 'cmp_q4', {
      networkUrl: 'https://www.linkedin.com/in/emma-email',
      firstName: 'Emma',
      lastName: 'Mailer',
      email: 'sim-replies-after-1@example.com',
    });
    // A LinkedIn thread, and a LinkedIn message in Emma's thread before her email: one inbox, two channels.
    const now = server.ctx.simClock.now();
    recordMessage(server.ctx, {
      lead: { id: 'lead_ada1', campaignId: 'cmp_q4' },
      sender: 'sequence',
      text: 'Thanks for connecting, Ada.',
      at: now - 3 * HOUR,
      accountId: 'acc_ada',
    });
    recordMessage(server.ctx, {
      lead: { id: 'lead_ada1', campaignId: 'cmp_q4' },
      sender: 'lead',
      text: 'Happy to talk.',
      at: now - 2 * HOUR,
      accountId: 'acc_ada',
    });
    recordMessage(server.ctx, {
      lead: { id: leadId, campaignId: 'cmp_q4' },
      sender: 'sequence',
      text: 'Thanks for connecting, Emma.',
      at: now - HOUR,
      accountId: 'acc_ada',
    });
    expect((await sendEmail(server.ctx, { mailboxId: 'mbx_sales', leadId, subject: 'A question, Emma', text: 'Would a short call help?' })).status).toBe(
      'sent',
    );
    // Bea's address bounces (the simulator's marker): her thread gets the mail server's notice.
    const { leadId: bea } = addLead(server.ctx, 'cmp_q4', {
      networkUrl: 'https://www.linkedin.com/in/bea-bounce',
      firstName: 'Bea',
      lastName: 'Bounced',
      email: 'sim-bounces@example.com',
    });
    server.ctx.clock.advance(10 * 60_000); // past the mailbox's spacing
    expect((await sendEmail(server.ctx, { mailboxId: 'mbx_sales', leadId: bea, subject: 'Hello Bea', text: 'A short note.' })).status).toBe('sent');
    server.ctx.clock.advance(2 * HOUR);
    expect(await readMailbox(server.ctx, 'mbx_sales', settings)).toMatchObject({ replies: 1, bounces: 1 });

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await page.goto(`${server.url}/app/login?token=${createLoginToken(server.ctx).token}`);
    await heading('Overview');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await smtp?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('lists the mailboxes with status, today against the limit and the warm-up, and connects a simulated one', async () => {
    await page.getByRole('link', { name: 'Mailboxes' }).click();
    await heading('Mailboxes');
    const sales = page.getByRole('article', { name: 'Sales mail' });
    await sales.getByText('connected', { exact: true }).waitFor();
    // The two emails sent above (Emma's and Bea's) count against today's limit.
    const meter = sales.getByRole('meter', { name: /^Emails today: 2 of \d+$/ });
    await meter.waitFor();
    // The fixture's mailbox was loaded already warm.
    await sales.getByText(/^No warm-up: up to \d+ emails a day\.$/).waitFor();
    await sales.getByText('Simulated mailbox (development)').waitFor();

    await page.getByLabel('Mailbox name', { exact: true }).fill('Dev mail');
    await page.getByLabel('Address', { exact: true }).fill('dev@outreach.test');
    await page.getByLabel('Simulated mailbox (development)').check();
    await page.getByLabel('Emails per day').last().fill('30');
    await expectAccessible();
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    await page.getByRole('status').filter({ hasText: 'dev@outreach.test is connected.' }).waitFor();
    const dev = page.getByRole('article', { name: 'Dev mail' });
    await dev.getByRole('meter', { name: 'Emails today: 0 of 10' }).waitFor();
    await dev.getByText('Warm-up: day 1 of 21.').waitFor();
    expect(mailboxesOf().find((m) => m.address === 'dev@outreach.test')).toMatchObject({ sim: true, dailyLimit: 30, warmUp: { day: 1, days: 21 } });
  });

  it('edits the limit, ends the warm-up and sets working hours, and the server keeps them', async () => {
    const dev = page.getByRole('article', { name: 'Dev mail' });
    await dev.getByText('Limits, warm-up and hours of dev@outreach.test').click();
    await dev.getByLabel('Emails per day').fill('40');
    await dev.getByLabel('Seconds between emails').fill('300');
    await dev.getByLabel('Warm-up', { exact: true }).uncheck();
    await dev.getByLabel('Only these hours').check();
    await dev.getByLabel('From', { exact: true }).fill('08:30');
    await dev.getByLabel('Until', { exact: true }).fill('16:00');
    await dev.getByLabel('Fri').uncheck();
    await dev.getByLabel('Time zone').fill('Europe/Berlin');
    await dev.getByRole('button', { name: 'Save settings' }).click();
    await dev.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await dev.getByText('No warm-up: up to 40 emails a day.').waitFor();
    await dev.getByRole('meter', { name: 'Emails today: 0 of 40' }).waitFor();
    expect(mailboxesOf().find((m) => m.address === 'dev@outreach.test')).toMatchObject({
      dailyLimit: 40,
      spacingSeconds: 300,
      warmUp: null,
      timeZone: 'Europe/Berlin',
      workingHours: { start: '08:30', end: '16:00', days: ['mon', 'tue', 'wed', 'thu'] },
    });

    // A time zone the server does not know is refused, and nothing changes.
    await dev.getByLabel('Time zone').fill('Mars/Olympus');
    await dev.getByRole('button', { name: 'Save settings' }).click();
    await dev
      .getByRole('alert')
      .filter({ hasText: /IANA time zone/ })
      .waitFor();
    expect(mailboxesOf().find((m) => m.address === 'dev@outreach.test')?.timeZone).toBe('Europe/Berlin');

    await dev.getByRole('button', { name: 'Pause dev@outreach.test' }).click();
    await dev.getByText('paused', { exact: true }).waitFor();
    await dev.getByRole('button', { name: 'Resume dev@outreach.test' }).click();
    await dev.getByText('connected', { exact: true }).waitFor();
    await expectAccessible();
  });

  it('a refused SMTP login names the server that refused it, and stores nothing', async () => {
    await page.getByLabel('Mailbox name', { exact: true }).fill('Bob');
    await page.getByLabel('Address', { exact: true }).fill('bob@outreach.test');
    await page.getByLabel('Simulated mailbox (development)').uncheck();
    await page.getByLabel('Provider').selectOption('other');
    await page.getByLabel('SMTP host').fill('127.0.0.1');
    await page.getByLabel('SMTP port').fill(String(smtp.port));
    await page.getByLabel('SMTP: TLS from the first byte').uncheck();
    await page.getByLabel('SMTP password variable').fill('OUTREACH_UI_WRONG_PASSWORD');
    await page.getByLabel('Read replies and bounces by IMAP').uncheck();
    // The form asks for the variable's name; no field takes a password.
    expect(await page.locator('input[type="password"]').count()).toBe(0);
    // A variable the server does not have: said as not set, not as a refused login.
    await page.getByLabel('SMTP password variable').fill('OUTREACH_UI_NOT_SET_ANYWHERE');
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    const unset = page.getByRole('alert').filter({ hasText: 'The SMTP password variable OUTREACH_UI_NOT_SET_ANYWHERE is not set where the server runs.' });
    await unset.waitFor();
    expect(await unset.getByText('refused').count()).toBe(0);
    await expectAccessible();
    await page.getByLabel('SMTP password variable').fill('OUTREACH_UI_WRONG_PASSWORD');
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'The SMTP server 127.0.0.1 refused the login.' });
    await alert.waitFor();
    await alert.getByText('OUTREACH_UI_WRONG_PASSWORD', { exact: true }).waitFor();
    expect(mailboxesOf().map((m) => m.address)).not.toContain('bob@outreach.test');
    await expectAccessible();
    await page.screenshot({ path: join(shots, 'mailboxes-login-refused.png'), fullPage: true });

    // The right variable connects it: the password went from the environment to the server, never through the page.
    process.env.OUTREACH_UI_SMTP_PASSWORD = PASSWORD;
    await page.getByLabel('SMTP password variable').fill('OUTREACH_UI_SMTP_PASSWORD');
    await page.getByRole('button', { name: 'Connect mailbox' }).click();
    await page.getByRole('status').filter({ hasText: 'bob@outreach.test is connected.' }).waitFor();
    const bob = page.getByRole('article', { name: 'Bob' });
    await bob.getByText(`Sends by 127.0.0.1:${smtp.port} (password in OUTREACH_UI_SMTP_PASSWORD)`).waitFor();
    await bob.getByText('No IMAP server: replies and bounces are not read.').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Mailboxes' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'mailboxes.png') });
  });

  it('a viewer reads the mailboxes without forms, and the server refuses their connect', async () => {
    const viewer = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    viewer.setDefaultTimeout(15_000);
    try {
      const p = await viewer.newPage();
      await p.goto(`${server.url}/app/login?token=${createLoginToken(server.ctx, viewerId).token}`);
      await heading('Overview', p);
      await p.getByRole('link', { name: 'Mailboxes' }).click();
      await heading('Mailboxes', p);
      await p
        .getByRole('article', { name: 'Dev mail' })
        .getByText(/300 seconds between emails · 08:30–16:00, mon, tue, wed, thu \(Europe\/Berlin\)/)
        .waitFor();
      expect(await p.getByRole('button', { name: 'Connect mailbox' }).count()).toBe(0);
      expect(await p.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
      const refused = (await p.evaluate(
        `fetch('/app/api/call', { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'connect_mailbox', arguments: { name: 'X', address: 'x@outreach.test', sim: true } }) })
          .then(async (r) => ({ status: r.status, body: await r.json() }))`,
      )) as { status: number; body: { error: { code: string } } };
      expect([refused.status, refused.body.error.code]).toEqual([403, 'forbidden']);
      await expectAccessible(p);
    } finally {
      await viewer.close();
    }
  });

  it('the sequence editor builds a multichannel sequence with an email step, its variants and the email conditions; it saves and reads back', async () => {
    const step = (name: string) => page.getByRole('group', { name, exact: true });
    const add = async (list: string, kind: string) => {
      await page.getByLabel(`Kind of step to add to ${list}`, { exact: true }).selectOption(kind);
      await page.getByRole('button', { name: `Add step to ${list}`, exact: true }).click();
    };
    await page.goto(`${server.url}/app/agents/new`);
    await heading('New agent');
    await page.getByLabel('Name', { exact: true }).fill('Invite, else email');
    // The starter: invite; if accepted, wait and a message; else withdraw. The email goes in the else branch.
    await step('Step 5: Withdraw the invitation').waitFor();
    await add('step 2, not accepted after 21 days', 'email');
    const email = step('Step 6: Email');
    await expect.poll(() => page.evaluate('document.activeElement?.id')).toBe(await email.getByLabel('Subject', { exact: true }).getAttribute('id'));
    await email.getByLabel('Subject', { exact: true }).fill('Hiring at {{companyName|your team}}');
    await email.getByLabel('Text', { exact: true }).fill('Hi {{firstName|there}}, I tried to reach you on LinkedIn. Worth a short call?');
    await email.getByRole('button', { name: 'Add variant B to step 6' }).click();
    await email.getByLabel('Text, variant B', { exact: true }).fill('Hi {{firstName|there}}, is hiring a priority this quarter?');
    await email.getByLabel("Subject, variant B (blank: variant A's)").fill('A question, {{firstName|there}}');
    // Only those who do not answer the email within 4 days get a follow-up.
    await add('step 2, not accepted after 21 days', 'if');
    const replied = step('Step 7: Branch on a condition');
    await replied.getByLabel('Condition').selectOption('email_replied');
    await replied.getByLabel('Within (hours)').fill('96');
    await page.getByRole('group', { name: 'Step 7: Then · Replied to an email within 4 days' }).getByText('A reply ends').waitFor();
    await add('step 7, no email reply after 4 days', 'email');
    const followUp = step('Step 8: Email');
    await followUp.getByLabel('Subject', { exact: true }).fill('Re: Hiring at {{companyName|your team}}');
    await followUp.getByLabel('Text', { exact: true }).fill('Bringing this back to the top of your inbox, {{firstName|there}}.');
    // At the top level: a bounce sends the lead back to LinkedIn with a visit; a tag waits for triage.
    await add('the sequence', 'if');
    const bounced = step('Step 9: Branch on a condition');
    await bounced.getByLabel('Condition').selectOption('email_bounced');
    await bounced.getByLabel('Within (hours)').fill('48');
    await add('step 9, email bounced within 2 days', 'visit');
    await add('the sequence', 'if');
    const tagged = step('Step 11: Branch on a condition');
    await tagged.getByLabel('Condition').selectOption('tagged');
    await tagged.getByLabel('Interested', { exact: true }).check();
    await tagged.getByLabel('Meeting request').check();
    await tagged.getByLabel('Within (hours)').fill('72');
    await add('step 11, not tagged meeting request or interested after 3 days', 'wait');
    await page.getByText('12 of 25 steps').waitFor();
    await expectAccessible();
    await page.getByRole('form', { name: 'Agent sequence' }).screenshot({ path: join(shots, 'agent-sequence-email.png') });

    await page.getByRole('button', { name: 'Create agent' }).click();
    await heading('Invite, else email');
    const agentId = new URL(page.url()).pathname.split('/').at(-1) ?? '';
    expect(agentId).toMatch(/^tpl_/);
    const saved = (await server.rest(`/agents/${agentId}`)).body as { steps: Record<string, any>[] };
    const strip = (steps: Record<string, any>[]): unknown[] =>
      steps.map(({ id: _id, ...s }) => (s.kind === 'if' ? { ...s, then: strip(s.then), else: strip(s.else) } : s));
    expect(strip(saved.steps)).toEqual([
      { kind: 'invite', note: 'Hi {{firstName|there}}, ' },
      {
        kind: 'if',
        condition: 'accepted',
        withinHours: 504,
        then: [
          { kind: 'wait', hours: 24 },
          { kind: 'message', text: 'Thanks for connecting, {{firstName|there}}!' },
        ],
        else: [
          { kind: 'withdraw' },
          {
            kind: 'email',
            subject: 'Hiring at {{companyName|your team}}',
            text: 'Hi {{firstName|there}}, I tried to reach you on LinkedIn. Worth a short call?',
            variants: [{ subject: 'A question, {{firstName|there}}', text: 'Hi {{firstName|there}}, is hiring a priority this quarter?' }],
          },
          {
            kind: 'if',
            condition: 'email_replied',
            withinHours: 96,
            then: [],
            else: [
              { kind: 'email', subject: 'Re: Hiring at {{companyName|your team}}', text: 'Bringing this back to the top of your inbox, {{firstName|there}}.' },
            ],
          },
        ],
      },
      { kind: 'if', condition: 'email_bounced', withinHours: 48, then: [{ kind: 'visit' }], else: [] },
      { kind: 'if', condition: 'tagged', tags: ['Meeting request', 'Interested'], withinHours: 72, then: [], else: [{ kind: 'wait', hours: 24 }] },
    ]);

    // Read back: the editor shows what was saved.
    await page.reload();
    await heading('Invite, else email');
    expect(await step('Step 6: Email').getByLabel('Subject, variant A', { exact: true }).inputValue()).toBe('Hiring at {{companyName|your team}}');
    expect(await step('Step 11: Branch on a condition').getByLabel('Condition').inputValue()).toBe('tagged');
    expect(await step('Step 11: Branch on a condition').getByLabel('Interested', { exact: true }).isChecked()).toBe(true);

    // A campaign of the agent with a mailbox: its funnel lists the email steps, variants A and B with their subjects.
    const created = await server.rest('/campaigns', {
      method: 'POST',
      body: JSON.stringify({ name: 'Multichannel', assignedTemplateId: agentId, mailboxIds: ['mbx_sales'] }),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const campaignId = (created.body as { id: string }).id;
    expect((created.body as { mailboxIds: string[] }).mailboxIds).toEqual(['mbx_sales']);
    await page.goto(`${server.url}/app/campaigns/${campaignId}`);
    // Its mailboxes, by name, ticked as saved; adding the second one goes through update_campaign.
    const chosen = page.getByRole('group', { name: 'Mailboxes that send for this campaign' });
    expect(await chosen.getByRole('checkbox', { name: /Sales mail/ }).isChecked()).toBe(true);
    await chosen.getByRole('checkbox', { name: /Dev mail/ }).check();
    await page.getByRole('button', { name: 'Save mailboxes' }).click();
    await page.getByRole('status').filter({ hasText: 'Mailboxes saved.' }).waitFor();
    const devId = mailboxesOf().find((m) => m.address === 'dev@outreach.test')?.id;
    expect(((await server.rest(`/campaigns/${campaignId}`)).body as { mailboxIds: string[] }).mailboxIds).toEqual(['mbx_sales', devId]);
    const funnel = page.getByRole('table', { name: /Each step of the agent and its variants/ });
    await funnel.waitFor();
    const emailRows = funnel.locator('tbody').filter({ hasText: 'Step 6: Email' });
    await emailRows.getByText('Hiring at {{companyName|your team}} · Hi {{firstName|there}}', { exact: false }).waitFor();
    await emailRows.getByText('A question, {{firstName|there}} ·', { exact: false }).waitFor();
    await funnel.locator('tbody').filter({ hasText: 'Step 7: If replied to an email within 4 days' }).waitFor();
    await funnel.locator('tbody').filter({ hasText: 'Step 9: If email bounced within 2 days' }).waitFor();
    await funnel.locator('tbody').filter({ hasText: 'Step 11: If tagged Meeting request or Interested within 3 days' }).waitFor();
    await expectAccessible();
  }, 120_000);

  it('the inbox shows the email thread beside the LinkedIn ones, each message marked by its channel', async () => {
    await page.getByRole('link', { name: 'Inbox' }).click();
    await heading('Inbox');
    await page.getByRole('link', { name: 'All', exact: true }).click();
    const threads = page.locator('section[aria-label="Threads"]');
    const email = threads.getByRole('link', { name: /Emma Mailer/ });
    await email.waitFor();
    await email.locator('.d-channel', { hasText: 'Email' }).waitFor();
    // The fixture's LinkedIn threads stay beside it, marked LinkedIn. Waited for, not counted at
    // once: Emma's thread is already in the list the inbox showed before "All" (it needs a reply),
    // so seeing it does not yet mean the "All" list has arrived.
    await threads.locator('.d-channel', { hasText: 'LinkedIn' }).first().waitFor();
    await email.click();
    const messages = page.getByRole('list', { name: 'Messages, oldest first' });
    const sent = messages.getByRole('listitem').filter({ hasText: 'A question, Emma' });
    await sent.locator('.d-channel', { hasText: 'Email' }).waitFor();
    const reply = messages.getByRole('listitem').filter({ has: page.locator('.o-msg-meta', { hasText: 'Lead' }) });
    await reply.locator('.d-channel', { hasText: 'Email' }).waitFor();
    const linkedin = messages.getByRole('listitem').filter({ hasText: 'Thanks for connecting, Emma.' });
    await linkedin.locator('.d-channel', { hasText: 'LinkedIn' }).waitFor();
    // Emma last wrote by email: a reply goes by email, and the page says from where and under which subject.
    const by = page.getByRole('group', { name: 'Reply by' });
    expect(await by.getByRole('radio', { name: 'Email' }).isChecked()).toBe(true);
    await page
      .getByText('Goes out by email from sales@outreach.test to sim-replies-after-1@example.com, as “Re: A question, Emma”', { exact: false })
      .waitFor();
    await by.getByRole('radio', { name: 'LinkedIn' }).check();
    await page.getByText("Goes out as a LinkedIn message from the lead's sender.").waitFor();
    await by.getByRole('radio', { name: 'Email' }).check();
    await expectAccessible();
    await page.screenshot({ path: join(shots, 'inbox-email.png') });
  });

  it('answers an email thread by email: the reply joins the thread as yours, marked Email, sent from the mailbox under "Re:"', async () => {
    server.ctx.clock.advance(10 * 60_000); // past the mailbox's spacing
    await page.getByLabel('Your reply').fill('Tuesday at 10 would suit me.');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByRole('status').filter({ hasText: 'Reply sent by email.' }).waitFor();
    const messages = page.getByRole('list', { name: 'Messages, oldest first' });
    const mine = messages.getByRole('listitem').filter({ hasText: 'Tuesday at 10 would suit me.' });
    await mine.locator('.o-msg-meta', { hasText: 'You' }).waitFor();
    await mine.locator('.d-channel', { hasText: 'Email' }).waitFor();
    await mine.getByText(/^Re: A question, Emma/).waitFor();
    const sends = server.ctx.db.$client.prepare("SELECT subject, mailbox_id AS mailboxId FROM email_sends WHERE subject LIKE 'Re:%'").all();
    expect(sends).toEqual([{ subject: 'Re: A question, Emma', mailboxId: 'mbx_sales' }]);
    await expectAccessible();
  });

  it("a bounce shows in the inbox: the thread says Bounced, the email is marked not delivered, the server's notice gives the reason", async () => {
    await page.getByRole('link', { name: 'Inbox' }).click();
    await heading('Inbox');
    await page.getByRole('link', { name: 'All', exact: true }).click();
    const thread = page.locator('section[aria-label="Threads"]').getByRole('link', { name: /Bea Bounced/ });
    await thread.getByText('Bounced', { exact: true }).waitFor();
    await thread.getByText(/Not delivered: the email "Hello Bea"/).waitFor();
    await thread.click();
    const messages = page.getByRole('list', { name: 'Messages, oldest first' });
    const sent = messages.getByRole('listitem').filter({ hasText: 'A short note.' });
    await sent.getByText('Not delivered', { exact: true }).waitFor();
    const notice = messages.getByRole('listitem').filter({ has: page.locator('.o-msg-meta', { hasText: 'Mail server' }) });
    await notice.getByText(/Not delivered: the email "Hello Bea" to sim-bounces@example\.com bounced\./).waitFor();
    await notice.getByText(/The mail server said: 5\.1\.1/).waitFor();
    // Email is not offered: before anything is typed, the reply box says why (get_conversation's
    // reply.email.unavailable), tied to the text box for a screen reader, and a reply goes on LinkedIn.
    const why = page.getByText(/^Email is not available: sim-bounces@example\.com bounced an earlier email, so it is never emailed again/);
    await why.waitFor();
    expect(await page.getByRole('radio', { name: 'Email' }).count()).toBe(0);
    expect(await page.getByLabel('Your reply').getAttribute('aria-describedby')).toBe(await why.getAttribute('id'));
    await page.getByText("This reply goes out as a LinkedIn message from the lead's sender.", { exact: false }).waitFor();
    expect(await messages.getByRole('listitem').count()).toBe(2);
    await expectAccessible();
    await page.screenshot({ path: join(shots, 'inbox-bounce.png') });
  });
});
