// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { loadDist } from './app.js';
import type * as Agents from '../../src/core/agents/agents.js';
import type * as Steps from '../../src/core/agents/steps.js';
import type * as Manage from '../../src/core/campaigns/manage.js';
import type * as StateMachine from '../../src/core/campaigns/state-machine.js';
import type * as Clock from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import type * as Runner from '../../src/core/outreach/runner.js';
import type * as State from '../../src/core/outreach/state.js';
import type * as Log from '../../src/log.js';
import type * as Server from '../../src/server.js';
import type * as Outreach from '../../src/workers/outreach/index.js';

/**
 * The step runner's cases in the scale simulation (bench/scale.ts): a branching, two-variant,
 * three-sender sequence on part of its campaigns; what a provider call costs on such a sequence
 * against the linear one, on the same database in the same run; and what one step decision
 * costs with 1,000,000 leads stored against 1,000.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export interface SequenceMods {
  agents: typeof Agents;
  manage: typeof Manage;
  runner: typeof Runner;
  state: typeof State;
  campaigns: typeof StateMachine;
  clock: typeof Clock;
  log: typeof Log;
  server: typeof Server;
  outreach: typeof Outreach;
}

export async function loadSequenceMods(root: string): Promise<SequenceMods> {
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  return {
    agents: await load('core/agents/agents.js'),
    manage: await load('core/campaigns/manage.js'),
    runner: await load('core/outreach/runner.js'),
    state: await load('core/outreach/state.js'),
    campaigns: await load('core/campaigns/state-machine.js'),
    clock: await load('core/clock.js'),
    log: await load('log.js'),
    server: await load('server.js'),
    outreach: await load('workers/outreach/index.js'),
  };
}

/**
 * The branching sequence: a visit, an invitation with two notes, and on acceptance a message in
 * two versions and a follow-up only to those who did not reply; without acceptance, the
 * invitation withdrawn and the lead's latest post liked.
 */
export const BRANCHING_STEPS: Steps.StepInput[] = [
  { kind: 'visit' },
  {
    kind: 'invite',
    note: 'Hi {{firstName}}, I work on outreach tooling and would love to connect.',
    variants: [{ note: '{{firstName}}, your work at {{companyName}} caught my eye. Happy to connect?' }],
  },
  {
    kind: 'if',
    condition: 'accepted',
    withinHours: 120,
    then: [
      { kind: 'wait', hours: 24 },
      {
        kind: 'message',
        text: 'Thanks for connecting, {{firstName}}! Would a short call be useful?',
        variants: [{ text: 'Good to be connected, {{firstName}}. Open to a 15-minute call?' }],
      },
      { kind: 'if', condition: 'replied', withinHours: 72, else: [{ kind: 'message', text: 'Following up, {{firstName}}: happy to share notes either way.' }] },
    ],
    else: [{ kind: 'withdraw' }, { kind: 'like_post' }],
  },
];

/** The linear sequence of the scale simulation's other campaigns (its agents' connectionNote and messages). */
export const LINEAR_AGENT = {
  connectionNote: 'Hi {{firstName}}, I work on outreach tooling and would love to connect.',
  messages: [
    { text: 'Thanks for connecting, {{firstName}}! Would a short call be useful?', delayHours: 24 },
    { text: 'Following up, {{firstName}}: happy to share notes either way.', delayHours: 72 },
  ],
};

/**
 * Gives every `every`-th campaign (`cmp_<i>`, whose agent is `tpl_<i>` on `acc_<i>`) the
 * branching sequence and three senders: its own account and the next two, which also send for
 * their own campaigns, so each account's rules are shared and audited across both kinds. The
 * campaigns are running: each is paused for the change and resumed, through the state machine.
 */
export function makeBranching(s: SequenceMods, ctx: Ctx, accounts: number, every: number): string[] {
  const ids: string[] = [];
  for (let i = 0; i < accounts; i += every) {
    const id = `cmp_${i}`;
    s.campaigns.applyCampaignEvent(ctx, id, 'pause');
    s.agents.updateAgent(ctx, `tpl_${i}`, { steps: BRANCHING_STEPS });
    s.manage.updateCampaign(ctx, id, { senderAccountIds: [0, 1, 2].map((k) => `acc_${(i + k) % accounts}`) });
    s.campaigns.applyCampaignEvent(ctx, id, 'resume');
    ids.push(id);
  }
  return ids;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** New leads for a probe; the same `slugs` give the same people (the simulator decides by slug). */
function insertProbeLeads(ctx: Ctx, campaignId: string, prefix: string, slugs: readonly string[], at: number): void {
  const client = ctx.db.$client;
  const insert = client.prepare(
    'INSERT INTO leads (id, campaign_id, network_url, first_name, last_name, company_name, job_title, stage, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  client.transaction(() => {
    slugs.forEach((slug, n) =>
      insert.run(`${prefix}_${n}`, campaignId, `https://www.linkedin.com/in/${slug}`, 'Ada', 'Test', 'Acme', 'Engineer', 'new', 'manual', at, at),
    );
  })();
}

/** Every running campaign paused, so a probe's campaigns are the engine's only work. */
function pauseAll(s: SequenceMods, ctx: Ctx): void {
  const running = ctx.db.$client.prepare("SELECT id FROM campaigns WHERE status = 'CAMPAIGN_IN_PROGRESS'").pluck().all() as string[];
  for (const id of running) s.campaigns.applyCampaignEvent(ctx, id, 'pause');
}

/** A probe account: always on, no warm-up, limits high enough that the probe is not held for days. */
function probeAccount(ctx: Ctx, id: string, at: number): void {
  ctx.db.$client
    .prepare(
      `INSERT OR IGNORE INTO accounts (id, name, status, connection_request_limit, message_limit, profile_visit_limit, post_reaction_limit,
       weekly_connection_request_limit, created_at, working_hours) VALUES (?, ?, 'connected', 100, 150, 100, 100, 1000, ?, '"always"')`,
    )
    .run(id, id, at);
}

function probeCampaign(s: SequenceMods, ctx: Ctx, id: string, agentId: string, at: number): void {
  s.campaigns.restoreCampaign(
    ctx,
    { id, name: id, status: 'CAMPAIGN_IN_PROGRESS', assignedTemplateId: agentId, createdAt: at, updatedAt: at },
    { ifMissing: true },
  );
}

export interface SequenceCost {
  sequence: 'linear' | 'branching';
  leads: number;
  days: number;
  calls: number;
  /** Wall time of the ticks that had work (due leads, sends or inbound events); idle ticks, the same for any sequence, are left out. */
  wallMs: number;
  /** Wall time of every tick, idle ones included. */
  allTicksMs: number;
  usPerCall: number;
  byKind: Record<string, number>;
}

/**
 * What a provider call costs on one kind of sequence (the wall time of the ticks with work, per call): `leads` leads over three always-on probe
 * accounts, run by the engine for `days` simulated days on the stepped clock of the simulation
 * (one simulated minute per busy tick, 15 when idle), with every other campaign paused. The
 * linear probe is three campaigns of the simulation's two-message agent, one per account; the
 * branching probe one campaign of the branching sequence with the three accounts as senders. Both
 * probes contact the same people (the same profile slugs), on the database of the simulation.
 */
export async function sequenceCost(
  s: SequenceMods,
  dbPath: string,
  sequence: 'linear' | 'branching',
  leads: number,
  days: number,
  start: number,
  round = 0,
): Promise<SequenceCost> {
  const clock = new s.clock.FakeClock(start);
  const ctx = s.server.createContext({ dbPath, env: 'development', config: {} }, s.log.silentLogger(), clock, clock);
  pauseAll(s, ctx);
  const tag = `${sequence === 'linear' ? 'lin' : 'br'}${round}`;
  const accounts = [0, 1, 2].map((k) => `acc_${tag}_${k}`);
  for (const id of accounts) probeAccount(ctx, id, clock.now());
  const slugs = Array.from({ length: leads }, (_, n) => `probe-person-${n.toString(36)}`);
  const campaigns: string[] = [];
  if (sequence === 'linear') {
    accounts.forEach((accountId, k) => {
      const agent = s.agents.createAgent(ctx, { name: `Linear ${k}`, accountId, ...LINEAR_AGENT });
      probeCampaign(s, ctx, `cmp_${tag}_${k}`, agent.id, clock.now());
      insertProbeLeads(
        ctx,
        `cmp_${tag}_${k}`,
        `lead_${tag}_${k}`,
        slugs.filter((_, n) => n % 3 === k),
        clock.now(),
      );
      campaigns.push(`cmp_${tag}_${k}`);
    });
  } else {
    const agent = s.agents.createAgent(ctx, { name: 'Branching', accountId: accounts[0] as string, steps: BRANCHING_STEPS });
    const campaign = s.manage.createCampaign(ctx, { name: 'Branching probe', assignedTemplateId: agent.id, senderAccountIds: accounts });
    s.campaigns.applyCampaignEvent(ctx, campaign.id, 'start');
    insertProbeLeads(ctx, campaign.id, `lead_${tag}`, slugs, clock.now());
    campaigns.push(campaign.id);
  }
  const engine = new s.outreach.Engine(ctx, { settings: s.outreach.resolveEngineSettings({}), random: seeded(7), holder: `probe-${tag}` });
  const end = clock.now() + days * DAY;
  let calls = 0;
  let wallMs = 0;
  let allTicksMs = 0;
  while (clock.now() < end) {
    const t0 = performance.now();
    const r = await engine.tick();
    const ms = performance.now() - t0;
    const busy = r.due + r.sends + r.inbound > 0;
    calls += r.sends;
    allTicksMs += ms;
    if (busy) wallMs += ms;
    clock.advance(busy ? MINUTE : 15 * MINUTE);
  }
  await engine.stop();
  const byKind: Record<string, number> = {};
  const kinds = ctx.db.$client
    .prepare(`SELECT kind, count(*) AS n FROM engine_intents WHERE account_id IN (${accounts.map(() => '?').join(', ')}) GROUP BY kind`)
    .all(...accounts) as { kind: string; n: number }[];
  for (const row of kinds) byKind[row.kind] = row.n;
  for (const id of campaigns) s.campaigns.applyCampaignEvent(ctx, id, 'pause');
  ctx.db.$client.close();
  return { sequence, leads, days, calls, wallMs, allTicksMs, usPerCall: (wallMs * 1000) / Math.max(1, calls), byKind };
}

/**
 * Both probes, in turns: a warm-up pair (not counted: the first ticks of a process pay for its
 * compilation), then `rounds` pairs, linear then branching, each with probe accounts and campaigns
 * of its own, so load from other work on the machine falls on both alike. Each kind's figure is
 * its round with the median cost per call.
 */
export async function sequenceCosts(
  s: SequenceMods,
  dbPath: string,
  leads: number,
  days: number,
  rounds: number,
  start: number,
): Promise<{ linear: SequenceCost; branching: SequenceCost }> {
  const runs: Record<'linear' | 'branching', SequenceCost[]> = { linear: [], branching: [] };
  for (let r = 0; r <= rounds; r++) {
    for (const sequence of ['linear', 'branching'] as const) {
      const cost = await sequenceCost(s, dbPath, sequence, leads, days, start + (2 * r + (sequence === 'linear' ? 0 : 1)) * (days + 2) * DAY, r);
      if (r > 0) runs[sequence].push(cost);
    }
  }
  const median = (list: SequenceCost[]) => [...list].sort((a, b) => a.usPerCall - b.usPerCall)[Math.floor(list.length / 2)] as SequenceCost;
  return { linear: median(runs.linear), branching: median(runs.branching) };
}

/** A deterministic uniform draw (Park-Miller). */
function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 16807) % 2147483647;
    return (x - 1) / 2147483646;
  };
}

export interface DecisionCost {
  leadsStored: number;
  decisions: number;
  /** Median and p90 of one decision's wall time, µs. */
  medianUs: number;
  p90Us: number;
  runs: number;
}

/**
 * What one step decision costs: the step runner, for a lead that came due, reads its position,
 * decides (here: its wait is over; it enters the next wait), records the steps passed and the new
 * position, and stores when the lead is next due, in one transaction; no provider call. `decisions`
 * leads of a probe campaign are placed at the first of two waits, its time up, and each decided
 * in turn; the positions are put back and it is repeated. Each decision is timed on its own.
 */
export async function decisionCost(s: SequenceMods, dbPath: string, decisions: number, runs: number, start: number): Promise<DecisionCost> {
  const clock = new s.clock.FakeClock(start);
  const ctx = s.server.createContext({ dbPath, env: 'development', config: {} }, s.log.silentLogger(), clock, clock);
  pauseAll(s, ctx);
  probeAccount(ctx, 'acc_decide', clock.now());
  const agent = s.agents.createAgent(ctx, {
    name: 'Decisions',
    accountId: 'acc_decide',
    steps: [{ kind: 'wait', hours: 1 }, { kind: 'wait', hours: 1 }, { kind: 'visit' }],
  });
  const [first] = agent.steps;
  probeCampaign(s, ctx, 'cmp_decide', agent.id, clock.now());
  const slugs = Array.from({ length: decisions }, (_, n) => `decide-${n.toString(36)}`);
  insertProbeLeads(ctx, 'cmp_decide', 'lead_decide', slugs, clock.now());
  const client = ctx.db.$client;
  const place = client.prepare(
    `INSERT INTO lead_positions (lead_id, campaign_id, agent_id, step_id, entered_at, updated_at) SELECT id, campaign_id, ?, ?, ?, ? FROM leads WHERE campaign_id = 'cmp_decide'
     ON CONFLICT (lead_id) DO UPDATE SET step_id = excluded.step_id, entered_at = excluded.entered_at, end_reason = NULL, ended_at = NULL`,
  );
  const stored = (client.prepare('SELECT count(*) AS n FROM leads').get() as { n: number }).n;
  const settings = s.outreach.resolveEngineSettings({});
  const ids = slugs.map((_, n) => `lead_decide_${n}`);
  const times: number[] = [];
  for (let r = 0; r < runs + 2; r++) {
    clock.advance(DAY);
    const now = clock.now();
    place.run(agent.id, first?.id, now - 2 * HOUR, now);
    const info = s.state.loadCampaignInfo(ctx, 'cmp_decide');
    if (!info) throw new Error('decision probe: no campaign');
    for (const id of ids) {
      const t0 = performance.now();
      const lead = s.state.getLead(ctx, id);
      if (!lead) throw new Error(`decision probe: no lead ${id}`);
      const after = s.runner.recordSequence(ctx, lead, info, settings, now);
      const us = (performance.now() - t0) * 1000;
      if (after.nextActionAt !== now) throw new Error(`decision probe: lead ${id} next due at ${after.nextActionAt}, expected ${now}`);
      if (r >= 2) times.push(us);
    }
  }
  s.campaigns.applyCampaignEvent(ctx, 'cmp_decide', 'pause');
  client.close();
  times.sort((a, b) => a - b);
  return { leadsStored: stored, decisions, medianUs: percentile(times, 50), p90Us: percentile(times, 90), runs };
}
