import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/core/members/members.js';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

type Event = { id: string; actor: { type: string; id: string; name: string }; action: string; targetIds: string[]; summary: string; at: string };

describe('the audit trail', () => {
  let server: TestServer;
  let keyId: string;
  let operatorId: string;
  let cookie: string;
  const count = (): number => server.ctx.db.$client.prepare('SELECT count(*) FROM audit_events').pluck().get() as number;
  const last = (): Event => {
    const row = server.ctx.db.$client.prepare('SELECT * FROM audit_events ORDER BY seq DESC LIMIT 1').get() as Record<string, string>;
    return {
      id: row.id!,
      actor: { type: row.actor_type!, id: row.actor_id!, name: row.actor_name! },
      action: row.action!,
      targetIds: JSON.parse(row.targets!),
      summary: row.summary!,
      at: '',
    };
  };
  /** Runs a write and expects exactly one new event, returned. */
  async function oneEvent(write: () => Promise<unknown>): Promise<Event> {
    const before = count();
    await write();
    expect(count()).toBe(before + 1);
    return last();
  }

  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    keyId = server.ctx.db.$client.prepare("SELECT id FROM api_keys WHERE env = 'test' LIMIT 1").pluck().get() as string;
    addMember(server.ctx, { name: 'Olga Owner', email: 'olga@example.com' });
    operatorId = addMember(server.ctx, { name: 'Omar Operator', email: 'omar@example.com', role: 'operator' }).id;
    cookie = await login(server.url, server.ctx, operatorId);
  });
  afterAll(() => server.close());

  it('records a REST write by an API key once, with the key and the ids, in the write transaction', async () => {
    const campaignId = 'cmp_q4';
    const event = await oneEvent(async () => {
      const r = await server.rest(`/campaigns/${campaignId}/leads/batch`, {
        method: 'POST',
        body: JSON.stringify({ leads: Array.from({ length: 3 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/audit-${i}` })) }),
      });
      expect(r.status).toBe(200);
    });
    const keyName = server.ctx.db.$client.prepare('SELECT name FROM api_keys WHERE id = ?').pluck().get(keyId);
    expect(event).toMatchObject({ actor: { type: 'key', id: keyId, name: keyName }, action: 'add_leads_batch', summary: expect.stringContaining('3 items') });
    expect(event.targetIds).toContain(campaignId);
  });

  it('records a dashboard write by the signed-in member', async () => {
    const running = { id: 'cmp_running' };
    const event = await oneEvent(async () => {
      const r = await appCall(server.url, cookie, 'pause_campaign', { campaignId: running.id });
      expect(r.body.isError).toBe(false);
    });
    expect(event).toMatchObject({ actor: { type: 'member', id: operatorId, name: 'Omar Operator' }, action: 'pause_campaign', targetIds: [running.id] });
  });

  it('names what a create made among its targets', async () => {
    let created = '';
    const event = await oneEvent(async () => {
      const r = await server.rest('/campaigns', { method: 'POST', body: JSON.stringify({ name: 'Audit target' }) });
      expect(r.status).toBe(200);
      created = r.body.id;
    });
    expect(event.action).toBe('create_campaign');
    expect(event.targetIds).toContain(created);
    // A mailbox too, and connecting the same one again names the one it got back.
    let mailbox = '';
    const body = JSON.stringify({ name: 'Audit box', address: 'audit-box@example.com', sim: true });
    const connected = await oneEvent(async () => {
      const r = await server.rest('/mailboxes', { method: 'POST', body });
      expect(r.status).toBe(200);
      mailbox = r.body.mailbox.id;
    });
    expect(connected).toMatchObject({ action: 'connect_mailbox', targetIds: [mailbox] });
    // Connecting the same one again answers it and changes nothing: no event.
    const before = count();
    expect((await server.rest('/mailboxes', { method: 'POST', body })).body.mailbox.id).toBe(mailbox);
    expect(count()).toBe(before);
  });

  it('leaves nothing for a successful write that changed nothing, such as a batch of ids the key cannot reach', async () => {
    const before = count();
    const r = await server.rest('/campaigns/cmp_q4/leads/batch-update', {
      method: 'POST',
      body: JSON.stringify({ updates: [{ leadId: 'lead_nowhere', tag: 'Interested' }] }),
    });
    expect(r.status).toBe(200);
    expect(r.body.summary).toMatchObject({ updated: 0, not_found: 1 });
    expect(count()).toBe(before);
    // The same call that does change a row is recorded once.
    const lead = server.ctx.db.$client.prepare("SELECT id FROM leads WHERE campaign_id = 'cmp_q4' AND tag IS NULL LIMIT 1").get() as { id: string };
    const event = await oneEvent(async () => {
      const u = await server.rest('/campaigns/cmp_q4/leads/batch-update', {
        method: 'POST',
        body: JSON.stringify({
          updates: [
            { leadId: lead.id, tag: 'Interested' },
            { leadId: 'lead_nowhere', tag: 'Interested' },
          ],
        }),
      });
      expect(u.body.summary).toMatchObject({ updated: 1, not_found: 1 });
    });
    expect(event.action).toBe('update_leads_batch');
    // It names what it changed, not the id it found nowhere.
    expect(event.targetIds).toEqual(['cmp_q4', lead.id]);
    // So does a delete, by the id as given (without its prefix) or in full.
    const doomed = server.ctx.db.$client.prepare("SELECT id FROM leads WHERE campaign_id = 'cmp_q4' AND id != ? LIMIT 1").pluck().get(lead.id) as string;
    const deleted = await oneEvent(async () => {
      const d = await server.rest('/campaigns/cmp_q4/leads/batch-delete', {
        method: 'POST',
        body: JSON.stringify({ leadIds: [doomed, 'nowhere', 'lead_nowhere_else'] }),
      });
      expect(d.body.summary).toMatchObject({ deleted: 1, not_found: 2 });
    });
    expect(deleted.targetIds).toEqual(['cmp_q4', doomed]);
  });

  it('leaves nothing for a refused write or a read', async () => {
    const before = count();
    expect((await server.rest('/campaigns/cmp_nope/pause', { method: 'POST' })).status).toBe(404);
    expect((await server.rest('/credits')).status).toBe(200);
    expect((await appCall(server.url, cookie, 'create_api_key', {})).status).toBe(403);
    expect(count()).toBe(before);
  });

  it('replays an idempotent write without a second event', async () => {
    const send = () =>
      server.rest('/campaigns/cmp_q4/leads', {
        method: 'POST',
        headers: { 'Idempotency-Key': 'audit-once' },
        body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/audit-once' }),
      });
    await oneEvent(send);
    const before = count();
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
    expect(count()).toBe(before);
  });

  it('keeps no message body in the trail', async () => {
    const secretWords = 'A very private sentence for the lead';
    await oneEvent(async () => {
      const r = await server.rest('/campaigns/cmp_q4/leads', {
        method: 'POST',
        body: JSON.stringify({ networkUrl: 'https://www.linkedin.com/in/audit-private', personalization: secretWords }),
      });
      expect(r.status).toBe(200);
    });
    const all = server.ctx.db.$client.prepare('SELECT * FROM audit_events').all();
    expect(JSON.stringify(all)).not.toContain(secretWords);
    expect(JSON.stringify(all)).not.toContain(TEST_KEY);
  });

  it('refuses every UPDATE and DELETE of the trail', () => {
    expect(() => server.ctx.db.$client.prepare("UPDATE audit_events SET summary = 'x'").run()).toThrow(/append-only/);
    expect(() => server.ctx.db.$client.prepare('DELETE FROM audit_events').run()).toThrow(/append-only/);
    expect(() => server.ctx.db.$client.prepare('DELETE FROM audit_targets').run()).toThrow(/append-only/);
  });

  it('lists the trail over REST with filters by actor, target and time, and cursors', async () => {
    const all = await server.rest('/audit?limit=100');
    expect(all.status).toBe(200);
    const events = all.body.events as Event[];
    expect(events.length).toBe(count());
    const byOperator = await server.rest(`/audit?actorId=${operatorId}`);
    expect((byOperator.body.events as Event[]).every((e) => e.actor.id === operatorId)).toBe(true);
    expect(byOperator.body.events.length).toBeGreaterThan(0);
    const target = events[0]!.targetIds[0]!;
    const byTarget = await server.rest(`/audit?targetId=${encodeURIComponent(target)}`);
    expect((byTarget.body.events as Event[]).every((e) => e.targetIds.includes(target))).toBe(true);
    const future = await server.rest(`/audit?since=${encodeURIComponent(new Date(Date.now() + 86_400_000 * 365 * 10).toISOString())}`);
    expect(future.body.events).toEqual([]);
    // Page by one: the pages join up to the whole list, newest first.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { events: Event[]; nextCursor: string | null } } = await server.rest(
        `/audit?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      paged.push(...page.body.events.map((e) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(paged).toEqual(events.map((e) => e.id));
    // A cursor of one filter is refused under another.
    const first = await server.rest('/audit?limit=1');
    const wrong = await server.rest(`/audit?limit=1&actorId=${operatorId}&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe('validation_error');
  });
});
