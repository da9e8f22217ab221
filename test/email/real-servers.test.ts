import MailComposer from 'nodemailer/lib/mail-composer';
import { ImapFlow } from 'imapflow';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replyToConversation } from '../../src/core/conversations/threads.js';
import { readMailbox } from '../../src/core/email/inbox.js';
import { sendEmail } from '../../src/core/email/send.js';
import { addLead } from '../../src/core/leads/add.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { getPosition, startSequence } from '../../src/core/sequences/store.js';
import { requireTool } from '../optional.js';
import { callTool, RELAXED_LIMITS, startTestServer, type TestServer } from '../helpers.js';
import { startTestSmtp, type TestSmtp } from './smtp-fixture.js';
import { mailServersInstalled, startMailServers, type MailServers } from './mail-servers.js';

const settings = resolveEngineSettings({ workingHours: null });
const USERS = { 'sdr@outreach.test': 'sales-secret-1', 'lead@outreach.test': 'lead-secret-2', 'ben@outreach.test': 'ben-secret-3' };

/** A header as it was written on the wire (mailparser parses List-* headers into its own shape). */
const headerLine = (mail: Awaited<ReturnType<typeof simpleParser>>, name: string): string | undefined =>
  mail.headerLines
    .find((h) => h.key === name)
    ?.line.slice(name.length + 1)
    .trim();

/** Waits for `fn` to give a value, for mail that the servers deliver on their own time. */
async function eventually<T>(what: string, fn: () => Promise<T | undefined>, servers: MailServers): Promise<T> {
  for (let i = 0; i < 150; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what} did not happen; the servers said:\n${servers.logs().slice(-3000)}`);
}

async function inboxOf(servers: MailServers, user: keyof typeof USERS): Promise<Buffer[]> {
  const client = new ImapFlow({ host: '127.0.0.1', port: servers.imapPort, secure: false, auth: { user, pass: USERS[user] }, logger: false });
  await client.connect();
  try {
    const box = await client.mailboxOpen('INBOX');
    if (box.exists === 0) return [];
    return (await client.fetchAll('1:*', { source: true })).map((m) => m.source as Buffer);
  } finally {
    await client.logout();
  }
}

describe.runIf(requireTool('Postfix and Dovecot (run as root)', mailServersInstalled()))('email through Debian Postfix into Dovecot', () => {
  let servers: MailServers;
  let refusing: TestSmtp;
  let server: TestServer;
  let mailboxId: string;
  let n = 0;
  const lead = (email: string) => {
    const { leadId } = addLead(server.ctx, 'cmp_running', { networkUrl: `https://www.linkedin.com/in/real-mail-${++n}`, firstName: 'Lea', email });
    startSequence(server.ctx, { leadId, campaignId: 'cmp_running', agentId: 'tpl_intro', stepId: 'step_1', at: server.ctx.simClock.now() });
    return leadId;
  };
  const send = async (leadId: string) => {
    server.ctx.clock.advance(5 * 60_000); // past the mailbox's spacing
    return sendEmail(server.ctx, { mailboxId, leadId, subject: 'Engines', text: 'Would a short call suit you?' });
  };

  beforeAll(async () => {
    // The next hop of bounce.test: it refuses every recipient, so Postfix bounces the mail.
    refusing = await startTestSmtp({ user: 'x', password: 'x', refuseRecipients: true });
    servers = await startMailServers(USERS, { bounceRelayPort: refusing.port });
    process.env.OUTREACH_E2E_SALES_PASSWORD = USERS['sdr@outreach.test'];
    server = await startTestServer({ limits: RELAXED_LIMITS });
    server.ctx.safety = settings.safety;
    const box = { host: '127.0.0.1', secure: false, user: 'sdr@outreach.test', passwordEnv: 'OUTREACH_E2E_SALES_PASSWORD' };
    const res = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Sales',
        address: 'sdr@outreach.test',
        fromName: 'Sales Team',
        smtp: { ...box, port: servers.smtpPort },
        imap: { ...box, port: servers.imapPort },
        spacingSeconds: 10,
      }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    mailboxId = res.body.mailbox.id;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    servers?.stop();
    await refusing?.close();
  });

  it('a refused IMAP login is mailbox_login_failed naming Dovecot', async () => {
    process.env.OUTREACH_E2E_WRONG = 'wrong';
    const res = await server.rest('/mailboxes', {
      method: 'POST',
      body: JSON.stringify({
        name: 'Wrong',
        address: 'lead@outreach.test',
        smtp: { host: '127.0.0.1', port: servers.smtpPort, secure: false, passwordEnv: 'OUTREACH_E2E_LEAD_OK' },
        imap: { host: '127.0.0.1', port: servers.imapPort, secure: false, passwordEnv: 'OUTREACH_E2E_WRONG' },
      }),
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('mailbox_login_failed');
  });

  it('sends through Postfix into Dovecot; the lead answers by IMAP APPEND; the reply ends the sequence and reaches the inbox', async () => {
    const leadId = lead('lead@outreach.test');
    const sent = await send(leadId);
    expect(sent.status, `${JSON.stringify(sent)}\n${servers.logs().slice(-1500)}`).toBe('sent');
    if (sent.status !== 'sent') return;
    const raw = await eventually('delivery to the lead', async () => (await inboxOf(servers, 'lead@outreach.test'))[0], servers);
    const mail = await simpleParser(raw);
    expect(mail.messageId).toBe(sent.messageId);
    expect(headerLine(mail, 'list-unsubscribe')).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/unsubscribe\/eml_[^>]+>$/);
    expect(headerLine(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.text).toContain('To receive no more emails from us: http://127.0.0.1');

    // The lead answers: a reply in the sales mailbox, as their mail client would put it there.
    const reply = await new MailComposer({
      from: 'lead@outreach.test',
      to: 'sdr@outreach.test',
      subject: 'Re: Engines',
      text: 'Yes, Tuesday works.\n\nOn Sun, Sales Team wrote:\n> Would a short call suit you?',
      inReplyTo: sent.messageId,
      references: [sent.messageId],
    })
      .compile()
      .build();
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: servers.imapPort,
      secure: false,
      auth: { user: 'lead@outreach.test', pass: USERS['lead@outreach.test'] },
      logger: false,
    });
    // APPEND into the sales inbox needs the sales login.
    client.options.auth = { user: 'sdr@outreach.test', pass: USERS['sdr@outreach.test'] };
    await client.connect();
    // Beside it, mail that answers nothing we sent: read past by its headers, never downloaded whole.
    const newsletter = await new MailComposer({
      from: 'news@lists.example.org',
      to: 'sdr@outreach.test',
      subject: 'This week',
      text: 'News.',
      inReplyTo: '<elsewhere@example.org>',
    })
      .compile()
      .build();
    await client.append('INBOX', newsletter);
    await client.append('INBOX', reply);
    await client.logout();

    const read = await readMailbox(server.ctx, mailboxId, settings);
    expect(read).toMatchObject({ replies: 1, ignored: 1 });
    expect(getPosition(server.ctx, leadId)).toMatchObject({ stepId: null, endReason: 'replied' });
    const inbound = server.ctx.db.$client.prepare("SELECT text, channel FROM messages WHERE lead_id = ? AND direction = 'inbound'").all(leadId);
    expect(inbound).toEqual([{ text: 'Yes, Tuesday works.', channel: 'email' }]);
    expect(server.ctx.db.$client.prepare("SELECT count(*) AS n FROM webhook_events WHERE type = 'lead.replied'").get()).toEqual({ n: 1 });
  });

  it("an operator's reply in the inbox goes through Postfix to the lead's Dovecot mailbox, threaded under the same subject", async () => {
    const leadId = lead('lead@outreach.test');
    const sent = await send(leadId);
    if (sent.status !== 'sent') throw new Error(`not sent: ${JSON.stringify(sent)}`);
    await eventually('delivery to the lead', async () => (await inboxOf(servers, 'lead@outreach.test')).find((m) => m.includes(sent.messageId)), servers);
    const theirs = '<answer-1@outreach.test>';
    const answer = await new MailComposer({
      from: 'lead@outreach.test',
      to: 'sdr@outreach.test',
      subject: 'Re: Engines',
      text: 'Which day?',
      messageId: theirs,
      inReplyTo: sent.messageId,
      references: [sent.messageId],
    })
      .compile()
      .build();
    const client = new ImapFlow({
      host: '127.0.0.1',
      port: servers.imapPort,
      secure: false,
      auth: { user: 'sdr@outreach.test', pass: USERS['sdr@outreach.test'] },
      logger: false,
    });
    await client.connect();
    await client.append('INBOX', answer);
    await client.logout();
    expect(await readMailbox(server.ctx, mailboxId, settings)).toMatchObject({ replies: 1 });

    server.ctx.clock.advance(5 * 60_000); // past the mailbox's spacing
    const r = await replyToConversation(server.ctx, { leadId, text: 'Tuesday at 10?' });
    const raw = await eventually(
      "the reply in the lead's mailbox",
      async () => (await inboxOf(servers, 'lead@outreach.test')).find((m) => m.includes(r.messageId)),
      servers,
    );
    const mail = await simpleParser(raw);
    expect(mail.subject).toBe('Re: Engines');
    expect(mail.from?.value[0]?.address).toBe('sdr@outreach.test');
    expect(mail.inReplyTo).toBe(theirs);
    expect(mail.references).toEqual([sent.messageId, theirs]);
    expect(mail.text).toContain('Tuesday at 10?');
    // Still an email of ours: it carries the unsubscribe.
    expect(headerLine(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('a bounced address gets a delivery-status report from Postfix, is excluded and never mailed again', async () => {
    const leadId = lead('nobody@bounce.test');
    const sent = await send(leadId);
    expect(sent.status, `${JSON.stringify(sent)}\n${servers.logs().slice(-1500)}`).toBe('sent');
    await eventually('the bounce', async () => ((await readMailbox(server.ctx, mailboxId, settings)).bounces > 0 ? true : undefined), servers);
    const event = server.ctx.db.$client.prepare("SELECT payload FROM webhook_events WHERE type = 'email.bounced'").get() as { payload: string };
    expect(JSON.parse(event.payload).data.email).toMatchObject({ address: 'nobody@bounce.test', mailboxId, status: expect.stringMatching(/^5\./) });
    expect(await send(leadId)).toEqual({ status: 'skipped', reason: 'bounced' });
    // The thread shows it, the same over REST and MCP: the email marked bounced, then Postfix's notice with its reason.
    const rest = await server.rest(`/conversations/${leadId}`);
    expect(rest.status).toBe(200);
    const [email, notice] = rest.body.messages;
    expect(rest.body.messages).toHaveLength(2);
    expect(email).toMatchObject({ sender: 'sequence', channel: 'email', bouncedAt: notice.at });
    expect(notice).toMatchObject({ sender: 'mail_server', direction: 'inbound', channel: 'email', bouncedAt: null });
    expect(notice.text).toContain('Not delivered: the email "Engines" to nobody@bounce.test bounced.');
    // What the refusing server answered travels in the report Postfix wrote.
    expect(notice.text).toMatch(/The mail server said: 5\.\d+\.\d+ .*550/);
    const mcp = await server.mcp(undefined, 'toolsets=triage');
    expect((await callTool(mcp, 'get_conversation', { leadId })).body.messages).toEqual(rest.body.messages);
    const list = await server.rest('/conversations?filter=all');
    expect(list.body.conversations.find((c: { leadId: string }) => c.leadId === leadId).lastMessage).toMatchObject({ sender: 'mail_server', channel: 'email' });
  });

  it('the one-click POST of List-Unsubscribe excludes the address and ends the sequence', async () => {
    const leadId = lead('ben@outreach.test');
    expect((await send(leadId)).status).toBe('sent');
    const raw = await eventually('delivery to ben', async () => (await inboxOf(servers, 'ben@outreach.test'))[0], servers);
    const url = String(headerLine(await simpleParser(raw), 'list-unsubscribe')).slice(1, -1);
    // What a mail client's one-click does (RFC 8058): a POST with this body, no login.
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    expect(getPosition(server.ctx, leadId)).toMatchObject({ stepId: null, endReason: 'excluded' });
    expect(await send(leadId)).toEqual({ status: 'skipped', reason: 'unsubscribed' });
    const forged = await fetch(`${url.slice(0, -3)}xyz`, { method: 'POST', body: 'List-Unsubscribe=One-Click' });
    expect(forged.status).toBe(404);
  });
});
