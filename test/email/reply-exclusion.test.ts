import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEmail } from '../../src/core/email/send.js';
import { addLead } from '../../src/core/leads/add.js';
import { addEmailExclusion } from '../../src/core/mailboxes/store.js';
import { resolveEngineSettings } from '../../src/core/outreach/settings.js';
import { exclusions } from '../../src/db/schema.js';
import { callTool, startTestServer, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

/*
 * An operator's email reply makes the same exclusion check as a LinkedIn message: the lead's own
 * flag, its profile URL on the workspace exclusion list, and (email only) its address having
 * unsubscribed or bounced. reply_conversation is a dashboard tool (no REST route, no MCP
 * listing), so it is called there; the LinkedIn send it shares the check with is called over
 * REST and MCP.
 */

const settings = resolveEngineSettings({ workingHours: null });

describe('an email reply to an excluded lead', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    server.ctx.publicUrl = server.url;
    server.ctx.safety = settings.safety;
    cookie = await login(server.url, server.ctx);
  });
  afterAll(() => server.close());
  const call = (name: string, args: Record<string, unknown>) => appCall(server.url, cookie, name, args);
  const count = (sql: string, ...args: unknown[]) =>
    server.ctx.db.$client
      .prepare(sql)
      .pluck()
      .get(...args) as number;

  /** A lead in an email thread: one email sent to it, so a reply goes by email. */
  async function emailedLead(slug: string, email: string): Promise<{ leadId: string; networkUrl: string }> {
    const networkUrl = `https://www.linkedin.com/in/${slug}`;
    const { leadId } = addLead(server.ctx, 'cmp_q4', { networkUrl, firstName: 'Ella', email });
    // Past the mailbox's spacing since its last email.
    server.ctx.clock.advance(10 * 60_000);
    const sent = await sendEmail(server.ctx, { mailboxId: 'mbx_sales', leadId, subject: 'Hello Ella', text: 'A short note.' });
    if (sent.status !== 'sent') throw new Error(`not sent: ${sent.status}`);
    server.ctx.clock.advance(10 * 60_000);
    return { leadId, networkUrl };
  }

  it('is refused when the profile URL is on the exclusion list, as a LinkedIn message is over REST and MCP', async () => {
    const { leadId, networkUrl } = await emailedLead('ella-listed', 'ella.listed@example.com');
    // The URL is on the list while the lead's own flag is not set (test setup: no verb leaves them apart).
    server.ctx.db.insert(exclusions).values({ networkUrl, createdAt: server.ctx.clock.now() }).run();
    const sends = count('SELECT count(*) FROM email_sends WHERE lead_id = ?', leadId);
    const messages = count('SELECT count(*) FROM messages WHERE lead_id = ?', leadId);

    const email = await call('reply_conversation', { leadId, channel: 'email', text: 'Thanks Ella.', idempotencyKey: 'excluded-email-1' });
    expect(email.body.isError).toBe(true);
    expect(email.body.structuredContent.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('is excluded from outreach, so it is not emailed'),
    });
    expect(count('SELECT count(*) FROM email_sends WHERE lead_id = ?', leadId)).toBe(sends);
    expect(count('SELECT count(*) FROM messages WHERE lead_id = ?', leadId)).toBe(messages);

    // The LinkedIn send refuses the same lead with the same check, over REST and MCP.
    const args = { campaignId: 'cmp_q4', leadId, text: 'Thanks Ella.' };
    const rest = await server.rest('/inbox/messages', { method: 'POST', body: JSON.stringify(args) });
    expect(rest.status).toBe(409);
    expect(rest.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('is excluded from outreach, so it is not messaged') });
    const mcp = await callTool(await server.mcp(), 'send_message', args);
    expect(mcp.isError).toBe(true);
    expect(mcp.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('is excluded from outreach, so it is not messaged') });
    const linkedin = await call('reply_conversation', { leadId, channel: 'linkedin', text: 'Thanks Ella.', idempotencyKey: 'excluded-linkedin-1' });
    expect(linkedin.body.structuredContent.error).toMatchObject({ code: 'conflict' });
    expect(count('SELECT count(*) FROM messages WHERE lead_id = ?', leadId)).toBe(messages);

    // Off the list, the same email reply goes.
    await call('remove_exclusions', { urls: [networkUrl] });
    const again = await call('reply_conversation', { leadId, channel: 'email', text: 'Thanks Ella.', idempotencyKey: 'excluded-email-2' });
    expect(again.body.isError, JSON.stringify(again.body.structuredContent)).toBe(false);
    expect(count('SELECT count(*) FROM email_sends WHERE lead_id = ?', leadId)).toBe(sends + 1);
  });

  it("is refused when the lead's own flag is set, and when its address unsubscribed, naming the address and why", async () => {
    const flagged = await emailedLead('ella-flagged', 'ella.flagged@example.com');
    const excluded = await call('update_lead', { campaignId: 'cmp_q4', leadId: flagged.leadId, excluded: true });
    expect(excluded.body.isError, JSON.stringify(excluded.body.structuredContent)).toBe(false);
    const r = await call('reply_conversation', { leadId: flagged.leadId, channel: 'email', text: 'Hi.', idempotencyKey: 'flagged-1' });
    expect(r.body.structuredContent.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('so it is not emailed') });

    const gone = await emailedLead('ella-gone', 'Ella.Gone@example.com');
    addEmailExclusion(server.ctx, 'ella.gone@example.com', 'unsubscribed', server.ctx.clock.now());
    const sends = count('SELECT count(*) FROM email_sends WHERE lead_id = ?', gone.leadId);
    const u = await call('reply_conversation', { leadId: gone.leadId, channel: 'email', text: 'Hi.', idempotencyKey: 'gone-1' });
    expect(u.body.structuredContent.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('ella.gone@example.com unsubscribed'),
      details: { address: 'ella.gone@example.com', reason: 'unsubscribed' },
    });
    expect(count('SELECT count(*) FROM email_sends WHERE lead_id = ?', gone.leadId)).toBe(sends);
    // get_conversation says so before any reply is typed: email is not available, and why.
    const thread = await call('get_conversation', { leadId: gone.leadId });
    expect(thread.body.structuredContent.reply.email).toMatchObject({
      to: 'ella.gone@example.com',
      unavailable: { reason: 'unsubscribed', message: expect.stringContaining('ella.gone@example.com unsubscribed, so it is never emailed again') },
    });
    // A lead whose address may be mailed has no such word.
    const listed = await call('get_conversation', { leadId: flagged.leadId });
    expect(listed.body.structuredContent.reply.email).not.toHaveProperty('unavailable');
  });
});
