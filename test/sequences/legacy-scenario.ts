import { asc } from 'drizzle-orm';
import type { NetworkProvider } from '../../src/core/network/provider.js';
import { activity, campaigns, engineIntents, leads } from '../../src/db/schema.js';
import type { EngineConfig } from '../../src/workers/outreach/index.js';
import { engineWorkspace, harness, MINUTE, type LeadSpec } from '../engine/helpers.js';

/**
 * A campaign of an agent written with connectionNote and messages, run through the engine for
 * weeks of simulated time, with leads that take every way through it: accepting at various
 * times, never accepting, replying in every way, failing, loaded part-way. Its trace (every
 * provider call with its time and text, every lead's final state, the activity log, the send
 * records and the campaign's stats) was recorded before the step runner existed
 * (test/fixtures/legacy-trace.json): the older shape must behave exactly as it did.
 */

export const LEGACY_LEADS: (string | LeadSpec)[] = [
  'a01-sim-accepts-after-2h-sim-no-reply',
  'a02-sim-fast-accept-sim-replies-positive',
  'a03-sim-accepts-after-30h-sim-replies-question',
  'a04-sim-never-accepts',
  'a05-sim-accepts-after-5h-sim-replies-negative',
  'a06-sim-fast-accept-sim-out-of-office',
  'a07-sim-send-fail',
  'a08-sim-not-found',
  'a09-plain',
  'a10-sim-accepts-after-1h-sim-replies-after-2',
  'a11-sim-outage',
  'a12-sim-accepts-after-90h-sim-no-reply',
  { slug: 'b01-loaded-connected-sim-no-reply', stage: 'connected' },
  { slug: 'b02-loaded-invited', stage: 'connection_sent' },
  { slug: 'b03-loaded-messaged-sim-no-reply', stage: 'messaged' },
  { slug: 'b04-excluded', excluded: true },
];

export const LEGACY_CONFIGS: Record<string, EngineConfig> = {
  withdrawing: { invitationTimeoutDays: 3, replyWaitDays: 2 },
  keeping: { invitationTimeoutDays: 3, replyWaitDays: 2, withdrawStaleInvitations: false },
};

type Call = { op: string; url: string | null; text: string | null; at: number };

function recorder(inner: NetworkProvider, now: () => number, calls: Call[]): NetworkProvider {
  const log = (op: string, url: string | undefined, text: string | null) => calls.push({ op, url: url ?? null, text, at: now() });
  return {
    lookupProfile: ((input: Parameters<NetworkProvider['lookupProfile']>[0]) => inner.lookupProfile(input)) as NetworkProvider['lookupProfile'],
    searchPeople: (i) => inner.searchPeople(i),
    lookalikeCandidates: (i) => inner.lookalikeCandidates(i),
    drainInbound: (n) => inner.drainInbound(n),
    accountHealth: (a) => inner.accountHealth(a),
    sendConnectionRequest: (i) => (log('connect', i.networkUrl, i.note), inner.sendConnectionRequest(i)),
    sendMessage: (i) => (log('message', i.recipient.networkUrl, i.text), inner.sendMessage(i)),
    withdrawInvitation: (i) => (log('withdraw', i.networkUrl, null), inner.withdrawInvitation(i)),
    visitProfile: (i) => (log('visit', i.networkUrl, null), inner.visitProfile(i)),
    likeLatestPost: (i) => (log('like', i.networkUrl, null), inner.likeLatestPost(i)),
    sendInMail: (i) => (log('inmail', i.recipient.networkUrl, i.text), inner.sendInMail(i)),
  };
}

export async function runLegacyScenario(config: EngineConfig): Promise<unknown> {
  const calls: Call[] = [];
  const h = harness(engineWorkspace(LEGACY_LEADS), { config, network: (ctx) => recorder(ctx.network, () => ctx.clock.now(), calls) });
  const start = h.ctx.clock.now();
  const rel = (t: number | null) => (t === null ? null : t - start);
  const ticks = await h.runUntil(() => h.campaign().status === 'COMPLETED', 10 * MINUTE, 4000);
  const slug = (url: string | null) => url?.replace(/^.*\/in\//, '') ?? null;
  return {
    ticks,
    calls: calls.map((c) => ({ op: c.op, lead: slug(c.url), text: c.text, at: rel(c.at) })),
    leads: h.ctx.db
      .select()
      .from(leads)
      .orderBy(asc(leads.seq))
      .all()
      .map((l) => ({
        id: l.id,
        stage: l.stage,
        excluded: l.excluded,
        replied: l.replied,
        needsReply: l.needsReply,
        accepted: l.connectionRequestAccepted,
        messageSent: l.messageSent,
        sequenceStep: l.sequenceStep,
        sendAttempts: l.sendAttempts,
        invitedAt: rel(l.invitedAt),
        connectedAt: rel(l.connectedAt),
        lastSequenceSentAt: rel(l.lastSequenceSentAt),
        withdrawnAt: rel(l.invitationWithdrawnAt),
        repliedAt: rel(l.repliedAt),
        nextActionAt: l.nextActionAt === null || l.nextActionAt === 0 ? l.nextActionAt : rel(l.nextActionAt),
        agentTurns: l.agentTurns,
        tag: l.tag,
        chat: l.chatId !== null,
      })),
    activity: h.ctx.db
      .select()
      .from(activity)
      .orderBy(asc(activity.seq))
      .all()
      .map((a) => ({ type: a.type, lead: a.leadId, at: rel(a.at), preview: a.messagePreview, handOff: a.handOffReason })),
    intents: h.ctx.db
      .select()
      .from(engineIntents)
      .orderBy(asc(engineIntents.seq))
      .all()
      .map((i) => ({ lead: i.leadId, kind: i.kind, step: i.step, text: i.text, state: i.state, at: rel(i.createdAt), error: i.errorCode })),
    campaign: h.ctx.db
      .select()
      .from(campaigns)
      .all()
      .map((c) => ({ status: c.status, stats: [c.connectionRequestsSent, c.connectionRequestsAccepted, c.messagesSent, c.repliesReceived] })),
  };
}
