import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findAccount } from '../../../src/core/accounts/resolve.js';
import { pauseCampaign, startCampaign } from '../../../src/core/campaigns/lifecycle.js';
import { utcDay } from '../../../src/core/clock.js';
import { addLead } from '../../../src/core/leads/add.js';
import { enrichLead, enrichmentOf } from '../../../src/core/outreach/enrich.js';
import { getLead, loadCampaignInfo } from '../../../src/core/outreach/state.js';
import { accountDaily } from '../../../src/db/schema.js';
import { engineSettings } from '../../engine/helpers.js';
import { profileUrl, useSetup } from './helpers.js';

/** Enrichment and Sales Navigator on Unipile, against the local contract server. */
const t = useSetup();

const lookups = (accountId: string): number =>
  t.ctx.db
    .select()
    .from(accountDaily)
    .where(and(eq(accountDaily.accountId, accountId), eq(accountDaily.day, utcDay(t.ctx.simClock.now()))))
    .get()?.profileLookups ?? 0;

async function enrich(networkUrl: string, fields: Record<string, string> = {}) {
  t.ctx.network = t.provider;
  const { leadId } = addLead(t.ctx, 'cmp_running', { networkUrl, ...fields });
  const info = loadCampaignInfo(t.ctx, 'cmp_running')!;
  const outcome = await enrichLead(t.ctx, { leadId, accountId: 'acc_ada', networkUrl, due: 0 }, info, engineSettings(), t.ctx.simClock.now());
  return { leadId, outcome, lead: getLead(t.ctx, leadId)! };
}

describe('enrichment through Unipile', () => {
  it("fills a lead known only by its URL from Unipile's profile endpoint, through the sender, counted in its lookups", async () => {
    t.server.addPerson({
      provider_id: 'ACoAAJane01',
      public_identifier: 'jane-doe',
      first_name: 'Jane',
      last_name: 'Doe',
      headline: 'CTO at Acme',
      location: 'Berlin, Germany',
    });
    const { outcome, lead } = await enrich(profileUrl('jane-doe'), { personalization: 'Met at a meetup' });
    expect(outcome).toMatchObject({ kind: 'enriched' });
    expect(lead).toMatchObject({
      firstName: 'Jane',
      lastName: 'Doe',
      fullName: 'Jane Doe',
      headline: 'CTO at Acme',
      jobTitle: 'CTO',
      companyName: 'Acme',
      location: 'Berlin, Germany',
      personalization: 'Met at a meetup',
    });
    // The same call lookup_profile makes: GET /users/{slug} for the sender's Unipile account.
    const [req] = t.server.requestsTo('GET', /^\/api\/v1\/users\/jane-doe$/);
    expect(req?.query.get('account_id')).toBe('UNI_ADA');
    expect(lookups('acc_ada')).toBe(1);
  });

  it('counts a profile Unipile does not know as a failure, and gives the lookup back', async () => {
    const { leadId, outcome, lead } = await enrich(profileUrl('nobody-here'));
    expect(outcome).toMatchObject({ kind: 'failed', code: 'not_found', failures: 1, ended: false });
    expect(lead.firstName).toBeNull();
    expect(enrichmentOf(t.ctx, leadId)).toMatchObject({ failures: 1, lastError: 'not_found' });
    expect(lookups('acc_ada')).toBe(0);
  });
});

describe('Sales Navigator from Unipile', () => {
  it("takes the account's flag from Unipile's premium features when a campaign starts, both ways", async () => {
    t.ctx.network = t.provider;
    const premium = (features: string[]) => {
      t.server.accounts.find((a: { id: string }) => a.id === 'UNI_ADA').connection_params.im.premiumFeatures = features;
    };
    expect(findAccount(t.ctx, 'acc_ada')?.hasSalesNavigator).toBe(false);
    premium(['premium', 'sales_navigator']);
    await startCampaign(t.ctx, 'cmp_q4');
    expect(findAccount(t.ctx, 'acc_ada')?.hasSalesNavigator).toBe(true);
    pauseCampaign(t.ctx, 'cmp_q4');
    premium(['premium']);
    await startCampaign(t.ctx, 'cmp_q4');
    expect(findAccount(t.ctx, 'acc_ada')?.hasSalesNavigator).toBe(false);
  });
});
