import { eq } from 'drizzle-orm';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { addLead } from '../../../src/core/leads/add.js';
import { SqliteUnipileStore } from '../../../src/core/network/unipile-store.js';
import { normalizeProfileUrl } from '../../../src/core/leads/url.js';
import { accounts } from '../../../src/db/schema.js';
import { silentLogger } from '../../../src/log.js';
import { createUnipileProvider, type UnipileProvider } from '../../../src/network/unipile/index.js';
import { HOUR, engineWorkspace, harness } from '../../engine/helpers.js';
import { startContractServer, type UnipileContractServer } from './contract-server.js';
import { ada, nav, SECRET, useSetup } from './helpers.js';

/**
 * A Sales Navigator search names people by their Sales Navigator id (`ACw…`) and gives no public
 * identifier. Invitations, messages and the acceptance name the classic id (`ACo…`), so the
 * adapter converts the id before a send and remembers the classic id under the lead's URL.
 */
const t = useSetup();

const jane = () =>
  t.server.addPerson({
    provider_id: 'ACoAAJane01',
    public_identifier: 'jane-doe',
    first_name: 'Jane',
    last_name: 'Doe',
    headline: 'CTO at Acme',
    sales_nav_id: 'ACwAAJaneSN1',
  });

async function salesNavHit() {
  const page = await t.provider.searchPeople({ account: nav, type: 'sales_nav', query: 'Jane', limit: 10 });
  expect(page.results).toHaveLength(1);
  return page.results[0]!;
}

describe('Sales Navigator member ids', () => {
  it('invites by the classic id, read once in the classic API, and the acceptance names the lead URL', async () => {
    jane();
    const hit = await salesNavHit();
    expect(hit.providerId).toBe('ACwAAJaneSN1');
    // What the lead holds after an add by this URL: the normal form, lower-cased.
    const leadUrl = normalizeProfileUrl(hit.networkUrl)!;
    expect(leadUrl).toBe('https://www.linkedin.com/in/acwaajanesn1');

    await t.provider.sendConnectionRequest({ account: ada, networkUrl: leadUrl, note: null });
    const reads = t.server.requestsTo('GET', /\/users\//);
    expect(reads.map((r) => r.path)).toEqual(['/api/v1/users/ACwAAJaneSN1']);
    expect(Object.fromEntries(reads[0]!.query)).toEqual({ account_id: 'UNI_ADA' });
    const [invite] = t.server.requestsTo('POST', /\/users\/invite$/);
    expect(invite?.json).toEqual({ account_id: 'UNI_ADA', provider_id: 'ACoAAJane01' });

    // The webhook names the classic id and the public identifier; the event names the lead's URL.
    t.provider.handleWebhook({ event: 'new_relation', account_id: 'UNI_ADA', user_provider_id: 'ACoAAJane01', user_public_identifier: 'jane-doe' });
    const [accepted] = await t.provider.drainInbound(t.ctx.clock.now());
    expect(accepted).toMatchObject({ type: 'invitation_accepted', providerId: 'ACoAAJane01', networkUrl: leadUrl });

    // The message after it needs no second read, and goes to the classic id.
    await t.provider.sendMessage({ account: ada, recipient: { networkUrl: leadUrl }, text: 'Thanks for connecting' });
    expect(t.server.requestsTo('GET', /\/users\//)).toHaveLength(1);
    const [chat] = t.server.requestsTo('POST', /\/chats$/);
    expect(chat?.form).toContainEqual(['attendees_ids', 'ACoAAJane01']);

    // A reply from the classic id names the lead's URL too.
    t.provider.handleWebhook({
      event: 'message_received',
      account_id: 'UNI_ADA',
      chat_id: 'chat-1',
      message_id: 'm-1',
      message: 'Hi!',
      sender: { attendee_provider_id: 'ACoAAJane01' },
    });
    const [reply] = await t.provider.drainInbound(t.ctx.clock.now());
    expect(reply).toMatchObject({ type: 'message_received', networkUrl: leadUrl });
  });

  it('converts a Sales Navigator provider id given with the lead (a Lookalike lead), and the relations poll finds the lead URL', async () => {
    jane();
    const hit = await salesNavHit();
    const leadUrl = normalizeProfileUrl(hit.networkUrl)!;
    await t.provider.sendConnectionRequest({ account: ada, networkUrl: leadUrl, providerId: hit.providerId, note: null });
    expect(t.server.requestsTo('POST', /\/users\/invite$/)[0]?.json.provider_id).toBe('ACoAAJane01');

    t.server.addRelation('UNI_ADA', t.server.people.find((p) => p.provider_id === 'ACoAAJane01')!, t.ctx.clock.now());
    expect((await t.provider.pollRelations()).accepted).toBe(1);
    const [accepted] = await t.provider.drainInbound(t.ctx.clock.now());
    expect(accepted).toMatchObject({ type: 'invitation_accepted', providerId: 'ACoAAJane01', networkUrl: leadUrl });
  });

  it('converts a Recruiter id the same way', async () => {
    t.server.addPerson({ provider_id: 'ACoAARex01', public_identifier: 'rex', sales_nav_id: 'AEMAARex01' });
    await t.provider.sendConnectionRequest({ account: ada, providerId: 'AEMAARex01', note: null });
    expect(t.server.requestsTo('POST', /\/users\/invite$/)[0]?.json.provider_id).toBe('ACoAARex01');
  });

  it('an InMail to a lead added by the hit URL goes to the remembered Sales Navigator id, without a read', async () => {
    jane();
    const hit = await salesNavHit();
    await t.provider.sendInMail({ account: nav, recipient: { networkUrl: normalizeProfileUrl(hit.networkUrl)! }, subject: 'S', text: 'T' });
    expect(t.server.requestsTo('GET', /\/users\//)).toHaveLength(0);
    expect(t.server.requestsTo('POST', /\/chats$/)[0]?.form).toContainEqual(['attendees_ids', 'ACwAAJaneSN1']);
  });
});

describe('Sales Navigator member ids through the engine', () => {
  let server: UnipileContractServer | undefined;
  let dispatcher: Agent | undefined;
  afterEach(async () => {
    expect(server?.violations).toEqual([]);
    await dispatcher?.close();
    await server?.close();
  });

  it.each([
    ['with Sales Navigator', true],
    ['without it (another account searched)', false],
  ])('a lead added from a Sales Navigator hit is enriched, invited, connected, messaged and replied to by a sender %s', async (_name, senderNav) => {
    server = await startContractServer();
    server.addAccount('UNI_A', { salesNav: senderNav, name: 'A' });
    server.addAccount('UNI_S', { salesNav: true, name: 'Searcher' });
    server.addPerson({ provider_id: 'ACoAAJane01', public_identifier: 'jane-doe', first_name: 'Jane', last_name: 'Doe', sales_nav_id: 'ACwAAJaneSN1' });
    const d = new Agent({ keepAliveTimeout: 10, keepAliveMaxTimeout: 10 });
    dispatcher = d;
    const contract = server;
    let provider: UnipileProvider | undefined;
    const base = engineWorkspace([], { extraAccounts: ['acc_s'] });
    const ws = { ...base, accounts: base.accounts!.map((a) => (a.id === 'acc_a' ? { ...a, hasSalesNavigator: senderNav } : a)), credits: { credits: 10 } };
    const h = harness(ws, {
      network: (ctx) => {
        ctx.db.update(accounts).set({ providerAccountId: 'UNI_A' }).where(eq(accounts.id, 'acc_a')).run();
        ctx.db.update(accounts).set({ providerAccountId: 'UNI_S' }).where(eq(accounts.id, 'acc_s')).run();
        provider = createUnipileProvider(
          { dsn: contract.url, apiKey: contract.apiKey, inboundSecret: SECRET },
          {
            store: new SqliteUnipileStore(ctx.db, ctx.simClock),
            clock: ctx.clock,
            log: silentLogger(),
            dispatcher: d,
            timeoutMs: 2_000,
            sleep: async () => {},
          },
        );
        return provider;
      },
    });
    const unipile = provider!;
    try {
      const page = await unipile.searchPeople({ account: { id: 'acc_s', hasSalesNavigator: true }, type: 'sales_nav', query: 'Jane', limit: 10 });
      const added = addLead(h.ctx, 'cmp', { networkUrl: page.results[0]!.networkUrl });
      expect(added.status).toBe('created');
      const id = added.leadId;

      await h.runUntil(() => h.lead(id).stage === 'connection_sent');
      // Enriched before the first send: the name came from the profile read.
      expect(h.lead(id).firstName).toBe('Jane');
      expect(contract.requestsTo('POST', /\/users\/invite$/).map((r) => r.json.provider_id)).toEqual(['ACoAAJane01']);

      unipile.handleWebhook({ event: 'new_relation', account_id: 'UNI_A', user_provider_id: 'ACoAAJane01', user_public_identifier: 'jane-doe' });
      await h.runUntil(() => h.lead(id).connectionRequestAccepted);
      expect(h.lead(id).stage).toBe('connected');

      await h.runUntil(() => h.lead(id).messageSent, HOUR / 4);
      expect(contract.requestsTo('POST', /\/chats$/)[0]?.form).toContainEqual(['attendees_ids', 'ACoAAJane01']);

      unipile.handleWebhook({
        event: 'message_received',
        account_id: 'UNI_A',
        chat_id: 'chat-1',
        message_id: 'm-1',
        message: 'Happy to talk',
        sender: { attendee_provider_id: 'ACoAAJane01' },
      });
      await h.runUntil(() => h.lead(id).replied);
      expect(h.lead(id).stage).toBe('replied');
    } finally {
      await unipile.idle();
      h.ctx.db.$client.close();
    }
  });
});
