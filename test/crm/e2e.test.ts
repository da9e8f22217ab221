import { asc } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { crmSyncOf } from '../../src/core/crm/config.js';
import { crmBacklog, listCrmSyncLog } from '../../src/core/crm/log.js';
import { getPosition } from '../../src/core/sequences/store.js';
import { triagePendingByModel } from '../../src/core/triage/suggest.js';
import { RETRY_DELAYS_MS } from '../../src/core/webhooks/schedule.js';
import { crmContacts, crmPushes } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { createTriager } from '../../src/network/drafter/index.js';
import { HubSpotCrm } from '../../src/network/crm/index.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { CrmWorker } from '../../src/workers/crm/worker.js';
import { StandInModel } from '../drafts/stand-in-model.js';
import { engineWorkspace, harness, type Harness, url } from '../engine/helpers.js';
import { TEST_KEY } from '../helpers.js';
import { until } from '../imports/children.js';
import { updateLead } from '../../src/core/leads/update.js';
import { HubSpotStandIn } from '../network/hubspot/stand-in.js';

/**
 * The HubSpot sync end to end: the engine on the simulated network, the real HTTP server over
 * the same database for the operator's confirmations, the real HubSpot adapter on
 * @hubspot/api-client, and the local HubSpot stand-in, counted there.
 */

const TOKEN_ENV = 'HUBSPOT_E2E_TOKEN';
const SECRET = 'cursor-secret';

let hs: HubSpotStandIn;
let model: StandInModel;
beforeAll(async () => {
  model = await new StandInModel().start();
});
afterAll(() => model.close());

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function rig(opts: { crm?: boolean } = {}) {
  hs = new HubSpotStandIn();
  await hs.start();
  cleanup.push(() => hs.stop());
  const h = harness(
    engineWorkspace([
      { slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' },
      { slug: 'nora-sim-fast-accept-sim-no-reply', firstName: 'Nora' },
      { slug: 'omar-sim-fast-accept-sim-no-reply', firstName: 'Omar' },
    ]),
  );
  if (opts.crm !== false) h.ctx.crm = crmSyncOf({ hubspot: { tokenEnv: TOKEN_ENV, ownerMap: { acc_a: '101' } } })!;
  h.ctx.triager = createTriager({ baseUrl: model.url, model: 'stand-in-1' });
  model.behaviour = { kind: 'reply', text: '{"tag":"Meeting request","confidence":0.92,"reason":"proposes a call"}' };
  const adapter = new HubSpotCrm({ tokenEnv: TOKEN_ENV, env: { [TOKEN_ENV]: hs.token }, basePath: hs.url });
  const worker = new CrmWorker(h.ctx, adapter, { rng: () => 0.5 });
  cleanup.push(() => worker.stop());
  // The server over the same database, its own workers off: this test ticks the engine and drains the outbox.
  const server: RunningServer = await startServer(
    { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: 'development', simSpeed: 1, config: {} },
    silentLogger(),
    h.ctx,
    { engine: false, lookalike: false },
  );
  cleanup.push(() => server.close());
  const rest = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}/public/v1${path}`, {
      ...init,
      headers: { 'X-API-Key': TEST_KEY, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return { h, worker, server, rest };
}

const linkOf = (h: Harness, leadId: string) =>
  h.ctx.db
    .select()
    .from(crmContacts)
    .all()
    .find((l) => l.leadId === leadId);
const pushes = (h: Harness) => h.ctx.db.select().from(crmPushes).orderBy(asc(crmPushes.seq)).all();
describe('HubSpot sync, end to end on the stand-in', () => {
  it('a reply becomes a suggested tag, confirmed as the inbox does; HubSpot gets the contact, its notes and a deal', async () => {
    const { h, worker, server, rest } = await rig();
    expect(server.crm).toBeNull();
    await h.runUntil(() => h.lead('lead_1').replied, 10 * 60_000);
    // The model's suggestion, outside the reply's transaction.
    expect(await triagePendingByModel(h.ctx)).toEqual({ suggested: 1, failed: 0 });
    const thread = await rest('/conversations/lead_1');
    expect(thread.status).toBe(200);
    expect(thread.body.suggestion).toMatchObject({ tag: 'Meeting request', suggestedBy: 'model' });
    // Confirming is the inbox's one call: update_lead with the suggested tag.
    const confirmed = await rest('/campaigns/cmp/leads/lead_1', { method: 'PATCH', body: JSON.stringify({ tag: thread.body.suggestion.tag }) });
    expect(confirmed.status).toBe(200);
    expect(h.lead('lead_1').tag).toBe('Meeting request');

    const queued = pushes(h).length;
    expect(await worker.drain()).toBe(queued);
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: 0, failed: 0, succeeded: queued });

    // At the stand-in: one contact, matched by its LinkedIn URL, with every note, and one deal.
    expect(hs.objects.contacts.size).toBe(1);
    const contact = [...hs.objects.contacts.values()][0]!;
    expect(contact.properties).toMatchObject({
      firstname: 'Pat',
      lastname: 'Test',
      company: 'Acme',
      hs_linkedin_url: url('pat-sim-fast-accept-sim-replies-positive'),
    });
    expect(linkOf(h, 'lead_1')?.contactId).toBe(contact.id);
    const noteBodies = [...hs.objects.notes.values()].map((n) => n.properties.hs_note_body ?? '');
    expect(noteBodies).toHaveLength(pushes(h).filter((p) => p.kind === 'note').length);
    // Each note once, in HubSpot's rich text, carrying its push id.
    expect(noteBodies.filter((b) => b.includes('LinkedIn invitation sent.'))).toHaveLength(1);
    expect(noteBodies.filter((b) => b.includes('LinkedIn reply received:'))).toHaveLength(1);
    expect(noteBodies.filter((b) => b.includes('Tagged Meeting request.'))).toHaveLength(1);
    for (const push of pushes(h).filter((p) => p.kind === 'note')) expect(noteBodies.filter((b) => b.includes(`[outreach push ${push.id}]`))).toHaveLength(1);
    expect(hs.objects.deals.size).toBe(1);
    const deal = [...hs.objects.deals.values()][0]!;
    expect(deal.properties).toMatchObject({
      dealname: 'Pat Test (Acme) – Engine test',
      pipeline: 'default',
      dealstage: 'appointmentscheduled',
      hubspot_owner_id: '101',
    });
    expect(hs.count('deals.create')).toBe(1);
    expect(hs.count('notes.create')).toBe(noteBodies.length);
    // The sync log tells the same story.
    const log = listCrmSyncLog(h.ctx, SECRET, { direction: 'push', limit: 200 }).entries;
    expect(log).toHaveLength(queued);
    expect(log.every((e) => e.outcome === 'succeeded')).toBe(true);
    expect(log.find((e) => e.kind === 'deal')?.detail).toBe(`deal ${deal.id} created`);
  });

  it('a contact moved to customer at the stand-in ends its lead’s sequence; one added by hand is found by its LinkedIn URL', async () => {
    const { h, worker, rest } = await rig();
    await h.runUntil(() => h.lead('lead_2').messageSent && h.lead('lead_3').messageSent, 10 * 60_000);
    expect((await rest('/campaigns/cmp/leads/lead_2', { method: 'PATCH', body: JSON.stringify({ tag: 'Information request' }) })).status).toBe(200);
    await worker.drain();
    const contactId = linkOf(h, 'lead_2')!.contactId;
    // The first poll reads what the pushes changed; none ends anything.
    expect(await worker.poll()).toMatchObject({ ended: 0 });
    expect(getPosition(h.ctx, 'lead_2')?.stepId).not.toBeNull();

    hs.setLifecycleStage(contactId, 'customer');
    // Omar was never pushed: a salesperson added him by hand, with the URL as people type it.
    const byHand = hs.addContact({ firstname: 'Omar', hs_linkedin_url: 'linkedin.com/in/omar-sim-fast-accept-sim-no-reply/', lifecyclestage: 'opportunity' });
    expect(await worker.poll()).toMatchObject({ ended: 2, unmatched: 0 });
    for (const id of ['lead_2', 'lead_3']) {
      expect(getPosition(h.ctx, id)).toMatchObject({ stepId: null, endReason: 'excluded' });
      expect(h.lead(id).excluded).toBe(true);
    }
    expect(linkOf(h, 'lead_3')?.contactId).toBe(byHand.id);
    // Nothing more is sent to them.
    const sent = h.events().filter((e) => e.leadId === 'lead_2' || e.leadId === 'lead_3').length;
    await h.runUntil(() => false, 60 * 60_000, 48).catch(() => undefined);
    expect(h.events().filter((e) => e.leadId === 'lead_2' || e.leadId === 'lead_3').length).toBe(sent);
    const pulled = listCrmSyncLog(h.ctx, SECRET, { direction: 'pull', outcome: 'ended', limit: 10 }).entries;
    expect(pulled.map((e) => [e.leadId, e.detail]).sort()).toEqual([
      ['lead_2', 'lifecycle stage customer: sequence ended, lead excluded'],
      ['lead_3', 'lifecycle stage opportunity: sequence ended, lead excluded'],
    ]);
  });

  it('a HubSpot outage (503s, then down) loses nothing: every push lands once when it is back', async () => {
    const { h, worker, rest } = await rig();
    await h.runUntil(() => h.lead('lead_1').replied, 10 * 60_000);
    expect((await rest('/campaigns/cmp/leads/lead_1', { method: 'PATCH', body: JSON.stringify({ tag: 'Interested' }) })).status).toBe(200);
    const queued = pushes(h).length;
    hs.fail({ status: 503, times: 2 });
    expect(await worker.drain()).toBe(1);
    h.ctx.clock.advance(RETRY_DELAYS_MS[0]!);
    expect(await worker.drain()).toBe(1);
    await hs.goDown();
    for (const delay of RETRY_DELAYS_MS.slice(1, 4)) {
      h.ctx.clock.advance(delay);
      expect(await worker.drain()).toBe(1);
    }
    expect(pushes(h)[0]).toMatchObject({ state: 'pending', attempts: 5 });
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: queued, failed: 0 });
    const retrying = listCrmSyncLog(h.ctx, SECRET, { outcome: 'retrying', limit: 10 }).entries;
    expect(retrying).toHaveLength(5);
    expect(retrying.at(-1)!.detail).toMatch(/^attempt 1 failed: .*503/);

    await hs.comeBack();
    h.ctx.clock.advance(RETRY_DELAYS_MS[4]!);
    expect(await worker.drain()).toBe(queued);
    expect(crmBacklog(h.ctx)).toMatchObject({ pending: 0, failed: 0, succeeded: queued });
    expect(hs.objects.contacts.size).toBe(1);
    expect(hs.objects.notes.size).toBe(queued - 2);
    expect(hs.objects.deals.size).toBe(1);
  });

  it('without a crm config nothing is queued and HubSpot hears nothing', async () => {
    const { h, worker, rest } = await rig({ crm: false });
    await h.runUntil(() => h.lead('lead_1').replied, 10 * 60_000);
    expect((await rest('/campaigns/cmp/leads/lead_1', { method: 'PATCH', body: JSON.stringify({ tag: 'Interested' }) })).status).toBe(200);
    expect(pushes(h)).toEqual([]);
    expect(await worker.drain()).toBe(0);
    expect(await worker.poll()).toEqual({ read: 0, ended: 0, unmatched: 0 });
    expect(hs.count()).toBe(0);
  });

  it('the server starts the worker from its config and it pushes on its own timer; without the token it does not start', async () => {
    hs = new HubSpotStandIn();
    await hs.start();
    cleanup.push(() => hs.stop());
    const config = { crm: { hubspot: { tokenEnv: TOKEN_ENV, basePath: hs.url, pollSeconds: 3600 } } };
    const settings = { host: '127.0.0.1', port: 0, dbPath: ':memory:', env: 'development' as const, simSpeed: 1, config };
    const start = async (vars: Record<string, string>) => {
      const h = harness(engineWorkspace([{ slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' }]));
      h.ctx.crm = crmSyncOf(config.crm)!;
      await h.runUntil(() => h.lead('lead_1').replied, 10 * 60_000);
      updateLead(h.ctx, 'cmp', 'lead_1', { tag: 'Interested' });
      // The adapter reads the token at each call: it stays set until the test ends.
      Object.assign(process.env, vars);
      cleanup.push(() => {
        for (const k of Object.keys(vars)) delete process.env[k];
      });
      return { h, server: await startServer(settings, silentLogger(), h.ctx, { engine: false, lookalike: false }) };
    };
    const without = await start({});
    expect(without.server.crm).toBeNull();
    expect(crmBacklog(without.h.ctx).pending).toBeGreaterThan(0);
    await without.server.close();
    expect(hs.count()).toBe(0);

    const withToken = await start({ [TOKEN_ENV]: hs.token });
    expect(withToken.server.crm).not.toBeNull();
    await until(() => hs.objects.deals.size === 1, 'the deal at the stand-in', 40_000);
    await until(() => crmBacklog(withToken.h.ctx).pending === 0, 'the outbox to drain', 40_000);
    expect(crmBacklog(withToken.h.ctx).failed).toBe(0);
    expect(hs.objects.contacts.size).toBe(1);
    await withToken.server.close();
  }, 120_000);
});
