import { afterEach, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { InsightsOverview } from '../../src/core/insights/overview.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { workspace } from '../../src/db/schema.js';
import { fixture, startTestServer, type TestServer, RELAXED_LIMITS } from '../helpers.js';
import { expectValidation, readBoth } from '../transports.js';

type CampaignInput = NonNullable<WorkspaceFileInput['campaigns']>[number];

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function overview(file: WorkspaceFileInput) {
  server = await startTestServer({ workspace: file, limits: RELAXED_LIMITS });
  const client = await server.mcp();
  const res = await readBoth(server, client, 'get_insights_overview', {});
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(InsightsOverview.strict().parse(res.body)).toEqual(res.body);
  return { body: res.body, client, server };
}

const updated = (minute: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + minute * 60_000).toISOString();
const campaign = (id: string, minute: number, stats: Partial<NonNullable<CampaignInput['stats']>>): CampaignInput => ({
  id,
  name: id,
  status: 'CAMPAIGN_IN_PROGRESS',
  updatedAt: updated(minute),
  stats: { connectionRequestsSent: 0, connectionRequestsAccepted: 0, messagesSent: 0, repliesReceived: 0, ...stats },
});
const ids = (list: { id: string }[]) => list.map((c) => c.id);

describe('get_insights_overview', () => {
  it('on the fixture: highlights, lifetime counters, both rankings and the sample', async () => {
    const { body, client, server: s } = await overview(fixture());
    expect(body.highlights).toEqual({
      lastActivityAt: '2026-11-02T09:00:00.000Z',
      lastReplyAt: '2026-11-02T09:00:00.000Z',
      lastReplyLeadName: 'Ada Lovelace',
      lastReplyCampaignId: 'cmp_q4',
    });
    // The seed sums campaign stats into the lifetime counters: cmp_q4 (10, 3, 3, 1) + cmp_paused (3, 2, 7, 2).
    expect(body.workspace).toEqual({ repliesReceived: 3, connectionRequestsSent: 13, connectionRequestsAccepted: 5, messagesSent: 10 });
    // cmp_q4: replies 1/3 = 33.3 %, acceptance 3/10 = 30 %; cmp_paused: 2/7 = 28.6 %, 2/3 = 66.7 %; the rest have no sends.
    expect(ids(body.topCampaignsByReplyRate)).toEqual(['cmp_q4', 'cmp_paused']);
    expect(ids(body.topCampaignsByAcceptanceRate)).toEqual(['cmp_paused', 'cmp_q4']);
    expect(body.campaignsSampled).toBe(7);
    expect(body.campaignsSampleCapped).toBe(false);
    // Campaign objects are the same as get_campaign's.
    const q4 = await readBoth(s, client, 'get_campaign', { campaignId: 'cmp_q4' });
    expect(body.topCampaignsByReplyRate[0]).toEqual(q4.body);
  });

  it('reads the workspace counters from the workspace row, not from the campaigns', async () => {
    const file = fixture();
    server = await startTestServer({ workspace: file, limits: RELAXED_LIMITS });
    server.ctx.db.update(workspace).set({ repliesReceived: 41, connectionRequestsSent: 0, messagesSent: 7 }).where(eq(workspace.id, 1)).run();
    const client = await server.mcp();
    const res = await readBoth(server, client, 'get_insights_overview', {});
    expect(res.body.workspace).toEqual({ repliesReceived: 41, connectionRequestsSent: 0, connectionRequestsAccepted: 5, messagesSent: 7 });
  });

  it('with no activity and no campaigns: null highlights, zero counters, empty rankings', async () => {
    const file = fixture();
    file.campaigns = [];
    file.activity = [];
    const { body } = await overview(file);
    expect(body).toEqual({
      highlights: { lastActivityAt: null, lastReplyAt: null, lastReplyLeadName: null, lastReplyCampaignId: null },
      workspace: { repliesReceived: 0, connectionRequestsSent: 0, connectionRequestsAccepted: 0, messagesSent: 0 },
      topCampaignsByReplyRate: [],
      topCampaignsByAcceptanceRate: [],
      campaignsSampled: 0,
      campaignsSampleCapped: false,
    });
  });

  it('highlights ignore manual sends and take the latest reply', async () => {
    const file = fixture();
    file.activity!.push(
      { id: 'a1', type: 'connection_accepted', timestamp: '2026-11-05T08:00:00Z', leadId: 'lead_ada1', campaignId: 'cmp_q4' },
      { id: 'a2', type: 'reply_received', timestamp: '2026-11-04T08:00:00Z', leadId: 'lead_x', campaignId: 'cmp_paused', leadName: ' Grace ' },
      { id: 'a3', type: 'message_sent', timestamp: '2026-11-09T08:00:00Z', leadId: 'lead_ada1', campaignId: 'cmp_q4', manual: true },
      { id: 'a4', type: 'reply_received', timestamp: '2026-11-08T08:00:00Z', leadId: 'lead_ada1', campaignId: 'cmp_q4', manual: true },
    );
    const { body } = await overview(file);
    expect(body.highlights).toEqual({
      lastActivityAt: '2026-11-05T08:00:00.000Z',
      lastReplyAt: '2026-11-04T08:00:00.000Z',
      lastReplyLeadName: 'Grace',
      lastReplyCampaignId: 'cmp_paused',
    });
  });

  it('a reply whose lead had no name has a null lastReplyLeadName', async () => {
    const file = fixture();
    file.activity = [{ id: 'a1', type: 'reply_received', timestamp: '2026-11-04T08:00:00Z', leadId: 'lead_x', campaignId: 'cmp_q4' }];
    const { body } = await overview(file);
    expect(body.highlights.lastReplyLeadName).toBeNull();
    expect(body.highlights.lastReplyCampaignId).toBe('cmp_q4');
  });

  it('ranks within the 100 most recently updated campaigns, at most 5, zero denominators left out, ties settled', async () => {
    const file = fixture();
    file.campaigns = [
      // The five oldest-updated have the best rates but fall outside the sample.
      ...Array.from({ length: 5 }, (_, i) =>
        campaign(`cmp_old${i}`, i, { messagesSent: 1, repliesReceived: 1, connectionRequestsSent: 1, connectionRequestsAccepted: 1 }),
      ),
      // Zero denominators: excluded from both rankings even though replies and accepts exist.
      ...Array.from({ length: 88 }, (_, i) => campaign(`cmp_zero${i}`, 10 + i, { repliesReceived: 3, connectionRequestsAccepted: 2 })),
      campaign('cmp_r50_n2', 200, { messagesSent: 2, repliesReceived: 1 }),
      campaign('cmp_r50_n10', 201, { messagesSent: 10, repliesReceived: 5 }),
      campaign('cmp_r50_n10_newer', 202, { messagesSent: 10, repliesReceived: 5 }),
      campaign('cmp_r60', 203, { messagesSent: 5, repliesReceived: 3 }),
      campaign('cmp_r10', 204, { messagesSent: 10, repliesReceived: 1 }),
      campaign('cmp_r0', 205, { messagesSent: 4, repliesReceived: 0 }),
      campaign('cmp_r90', 206, { messagesSent: 10, repliesReceived: 9 }),
      campaign('cmp_a75', 207, { connectionRequestsSent: 4, connectionRequestsAccepted: 3 }),
      campaign('cmp_a25', 208, { connectionRequestsSent: 4, connectionRequestsAccepted: 1 }),
      campaign('cmp_a0', 209, { connectionRequestsSent: 9, connectionRequestsAccepted: 0 }),
      // 1/3 and 333/1000 both show 33.3 %: the larger denominator ranks first.
      campaign('cmp_a33_n3', 210, { connectionRequestsSent: 3, connectionRequestsAccepted: 1 }),
      campaign('cmp_a33_n1000', 211, { connectionRequestsSent: 1000, connectionRequestsAccepted: 333 }),
    ];
    file.activity = [];
    expect(file.campaigns).toHaveLength(105);
    const { body } = await overview(file);
    expect(body.campaignsSampled).toBe(100);
    expect(body.campaignsSampleCapped).toBe(true);
    expect(ids(body.topCampaignsByReplyRate)).toEqual(['cmp_r90', 'cmp_r60', 'cmp_r50_n10_newer', 'cmp_r50_n10', 'cmp_r50_n2']);
    expect(ids(body.topCampaignsByAcceptanceRate)).toEqual(['cmp_a75', 'cmp_a33_n1000', 'cmp_a33_n3', 'cmp_a25', 'cmp_a0']);
    expect(body.topCampaignsByAcceptanceRate[1].stats.acceptanceRate).toBe(33.3);
    expect(body.topCampaignsByAcceptanceRate[2].stats.acceptanceRate).toBe(33.3);
    for (const c of [...body.topCampaignsByReplyRate, ...body.topCampaignsByAcceptanceRate]) expect(c.id).not.toMatch(/^cmp_(old|zero)/);
  });

  it.each([
    [99, false],
    [100, true],
  ])('%i campaigns: campaignsSampleCapped is %s', async (count, capped) => {
    const file = fixture();
    file.campaigns = Array.from({ length: count }, (_, i) => campaign(`cmp_${i}`, i, {}));
    file.activity = [];
    const { body } = await overview(file);
    expect(body.campaignsSampled).toBe(count);
    expect(body.campaignsSampleCapped).toBe(capped);
    expect(body.topCampaignsByReplyRate).toEqual([]);
  });

  it('takes no arguments', async () => {
    server = await startTestServer({ limits: RELAXED_LIMITS });
    const client = await server.mcp();
    expectValidation(await readBoth(server, client, 'get_insights_overview', { days: 7 }), 'days');
  });
});
