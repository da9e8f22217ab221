import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pauseCampaign, startCampaign } from '../../src/core/campaigns/lifecycle.js';
import { updateCampaign } from '../../src/core/campaigns/manage.js';
import { listDrafts } from '../../src/core/drafts/list.js';
import { sendsToConfirm, updateDrafts } from '../../src/core/drafts/update.js';
import { accounts } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { startServer } from '../../src/server.js';
import { confirmationMessage } from '../../src/tools/update-drafts.js';
import { MINUTE } from '../engine/helpers.js';
import { stepsHarness, type StepsHarness } from './runner-helpers.js';
import { modernRpc } from '../transports.js';

const NAMES: Record<string, string> = { acc_b: 'Sales', acc_c: 'Ops', acc_d: 'Support' };

/**
 * A campaign whose agent's account (acc_a) is none of its senders: a draft naming acc_a would
 * name an account that never sends for it.
 */
async function threeSenders(leads: number): Promise<StepsHarness> {
  const slugs = Array.from({ length: leads }, (_, i) => `d${i}-sim-never-accepts`);
  return stepsHarness([{ kind: 'invite', note: 'Hi {{firstName}}, glad to connect.' }], slugs, {
    approval: 'required',
    senders: ['acc_b', 'acc_c', 'acc_d'],
    workspace: (ws) => {
      for (const [id, name] of Object.entries(NAMES)) ws.accounts!.push({ id, name, status: 'connected', connectionRequestLimit: 20 });
    },
  });
}

const drafts = (h: StepsHarness, status?: 'pending' | 'approved' | 'sent') =>
  listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100, ...(status ? { status } : {}) }).drafts;

/** The account each lead's invitation went from, by its network URL. */
const connectFrom = (h: StepsHarness) =>
  new Map<string | null | undefined, string>(h.net.calls.filter((c) => c.op === 'connect').map((c) => [c.networkUrl, c.accountId]));

describe('drafts in a campaign with several senders', () => {
  it("every draft names the lead's sender, pinned when drafted, and is sent from exactly that account; the confirmation names each sender", async () => {
    const h = await threeSenders(9);
    await h.runUntil(() => drafts(h, 'pending').length === 9, 10 * MINUTE, 100);
    const pending = drafts(h, 'pending');
    for (const d of pending) {
      const lead = h.lead(d.leadId);
      expect(lead.accountId, d.leadId).not.toBeNull();
      expect(d.accountId, d.leadId).toBe(lead.accountId);
    }
    // Spread by what each can still invite: three each.
    const per = (ids: (string | null)[]) => Object.fromEntries(['acc_b', 'acc_c', 'acc_d'].map((a) => [a, ids.filter((x) => x === a).length]));
    expect(per(pending.map((d) => d.accountId))).toEqual({ acc_b: 3, acc_c: 3, acc_d: 3 });
    expect(h.net.calls).toEqual([]);

    // One approval batch across senders: the confirmation counts each sender's share.
    const ofSales = pending.filter((d) => d.accountId === 'acc_b');
    const ofOps = pending.filter((d) => d.accountId === 'acc_c');
    const batch = [...ofSales, ...ofOps.slice(0, 2)].map((d) => ({ id: d.id, status: 'approved' as const }));
    expect(confirmationMessage(sendsToConfirm(h.ctx, batch))).toBe('Send 5 invitations: 3 from Sales, 2 from Ops?');
    expect(confirmationMessage(sendsToConfirm(h.ctx, [{ id: ofOps[2]!.id, status: 'approved' }]))).toBe('Send 1 invitation from Ops?');

    expect(
      updateDrafts(
        h.ctx,
        pending.map((d) => ({ id: d.id, status: 'approved' as const })),
      ).summary.updated,
    ).toBe(9);
    await h.runUntil(() => drafts(h, 'sent').length === 9, 10 * MINUTE, 200);
    const from = connectFrom(h);
    expect(from.size).toBe(9);
    for (const d of drafts(h, 'sent')) {
      const lead = h.lead(d.leadId);
      expect(d.accountId, d.leadId).toBe(lead.accountId);
      expect(from.get(lead.networkUrl), d.leadId).toBe(d.accountId);
      expect(h.intents(d.leadId).map((i) => i.accountId)).toEqual([d.accountId]);
    }
  });

  it('an approved draft whose sender is disconnected waits for it and is never sent from another sender', async () => {
    const h = await threeSenders(3);
    await h.runUntil(() => drafts(h, 'pending').length === 3, 10 * MINUTE, 100);
    const [held, ...rest] = drafts(h, 'pending');
    const sender = held!.accountId!;
    h.ctx.db.update(accounts).set({ status: 'disconnected' }).where(eq(accounts.id, sender)).run();
    updateDrafts(
      h.ctx,
      [held!, ...rest].map((d) => ({ id: d.id, status: 'approved' as const })),
    );
    await h.runUntil(() => drafts(h, 'sent').length === 2, 10 * MINUTE, 100);
    // A day of ticks: the others went, this one still waits, approved, on its own sender.
    for (let i = 0; i < 48; i++) {
      h.ctx.clock.advance(30 * MINUTE);
      await h.tick();
    }
    expect(drafts(h, 'approved').map((d) => [d.id, d.accountId])).toEqual([[held!.id, sender]]);
    expect(h.lead(held!.leadId).accountId).toBe(sender);
    expect(h.intents(held!.leadId)).toEqual([]);

    h.ctx.db.update(accounts).set({ status: 'connected' }).where(eq(accounts.id, sender)).run();
    await h.runUntil(() => drafts(h, 'sent').length === 3, 10 * MINUTE, 100);
    expect(connectFrom(h).get(h.lead(held!.leadId).networkUrl)).toBe(sender);
  });

  it("a draft whose sender is taken off the campaign's senders still goes from that sender, as the lead's every step does", async () => {
    const h = await threeSenders(3);
    await h.runUntil(() => drafts(h, 'pending').length === 3, 10 * MINUTE, 100);
    const [kept] = drafts(h, 'pending');
    const removed = kept!.accountId!;
    await pauseCampaign(h.ctx, 'cmp');
    updateCampaign(h.ctx, 'cmp', { senderAccountIds: ['acc_b', 'acc_c', 'acc_d'].filter((a) => a !== removed) });
    await startCampaign(h.ctx, 'cmp');
    // The draft still names the account the person approves it for.
    expect(drafts(h).find((d) => d.id === kept!.id)?.accountId).toBe(removed);
    expect(confirmationMessage(sendsToConfirm(h.ctx, [{ id: kept!.id, status: 'approved' }]))).toBe(`Send 1 invitation from ${NAMES[removed]}?`);
    updateDrafts(
      h.ctx,
      drafts(h, 'pending').map((d) => ({ id: d.id, status: 'approved' as const })),
    );
    await h.runUntil(() => drafts(h, 'sent').length === 3, 10 * MINUTE, 100);
    expect(connectFrom(h).get(h.lead(kept!.leadId).networkUrl)).toBe(removed);
  });

  it('over MCP, approving one batch across senders asks "Send N messages: n from SENDER, …?" and the drafts go from those senders', async () => {
    const h = await threeSenders(6);
    await h.runUntil(() => drafts(h, 'pending').length === 6, 10 * MINUTE, 100);
    const server = await startServer({ host: '127.0.0.1', port: 0, dbPath: ':memory:', env: h.ctx.env, simSpeed: 1, config: {} }, silentLogger(), h.ctx, {
      engine: false,
      lookalike: false,
    });
    // A 2026-07-28 client that can ask its user: the server asks through an input_required round.
    const caps = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'draft-senders', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    };
    const call = async (name: string, params: Record<string, unknown>) =>
      (await modernRpc(`${server.url}/mcp?toolsets=drafts`, 'tools/call', { name, ...params }, caps)).result;
    try {
      const listed = (await call('list_drafts', { arguments: { campaignId: 'cmp', status: 'pending', limit: 100 } })).structuredContent.drafts as {
        id: string;
        leadId: string;
        accountId: string;
      }[];
      expect(listed).toHaveLength(6);
      for (const d of listed) expect(d.accountId, d.leadId).toBe(h.lead(d.leadId).accountId);
      // Two senders' drafts in one call: two of Sales's and one of Support's.
      const batch = [...listed.filter((d) => d.accountId === 'acc_b').slice(0, 2), ...listed.filter((d) => d.accountId === 'acc_d').slice(0, 1)];
      const args = { drafts: batch.map((d) => ({ id: d.id, status: 'approved' })) };
      const round = await call('update_drafts', { arguments: args });
      expect(round.resultType).toBe('input_required');
      expect(round.inputRequests.confirm.params.message).toBe('Send 3 invitations: 2 from Sales, 1 from Support?');
      const done = await call('update_drafts', {
        arguments: args,
        inputResponses: { confirm: { action: 'accept', content: {} } },
        requestState: round.requestState,
      });
      expect(done.structuredContent.summary.updated).toBe(3);
      // The server closes the database when it stops: the sends are checked before.
      await h.runUntil(() => drafts(h, 'sent').length === 3, 10 * MINUTE, 100);
      const from = connectFrom(h);
      for (const d of drafts(h, 'sent')) expect(from.get(h.lead(d.leadId).networkUrl), d.leadId).toBe(d.accountId);
      expect(new Set(drafts(h, 'sent').map((d) => d.accountId))).toEqual(new Set(['acc_b', 'acc_d']));
    } finally {
      await server.close();
    }
  });
});
