// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else; these objects are never awaited.
import { copyFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { loadDist } from './app.js';
import { inLockstep, type TimedTick } from './lockstep.js';
import { removeDatabase } from './statements.js';
import type * as Steps from '../../src/core/agents/steps.js';
import type * as Mailboxes from '../../src/core/mailboxes/mailbox.js';
import type { Ctx } from '../../src/core/context.js';
import type { SequenceMods } from './sequences.js';

/**
 * The email channel in the scale simulation (bench/scale.ts): part of its campaigns run a
 * sequence with email steps from simulated mailboxes, one mailbox per campaign's sender; and what
 * an email send costs against a LinkedIn send, in CPU time, on the same database in the same run.
 */

const MINUTE = 60_000;

/** The public address the bench's contexts carry, as a started server's would: the base of each email's unsubscribe link. */
export const PUBLIC_URL = 'https://outreach.example.com';
const DAY = 24 * 60 * MINUTE;

export interface EmailMods {
  mailboxes: typeof Mailboxes;
}

export async function loadEmailMods(root: string): Promise<EmailMods> {
  return { mailboxes: await loadDist<typeof Mailboxes>(root, 'core/mailboxes/mailbox.js') };
}

/**
 * The email campaigns' sequence: an email first, then the invitation; on acceptance a message,
 * without it a follow-up email.
 */
export const EMAIL_STEPS: Steps.StepInput[] = [
  {
    kind: 'email',
    subject: 'Outreach tooling, {{firstName}}',
    text: 'Hi {{firstName}}, I work on outreach tooling and thought of {{companyName}}. Worth a short call?',
    variants: [{ text: '{{firstName}}, a short note: we build outreach tooling. Open to a 15-minute call?' }],
  },
  { kind: 'invite', note: 'Hi {{firstName}}, I wrote to you by email as well; happy to connect here.' },
  {
    kind: 'if',
    condition: 'accepted',
    withinHours: 120,
    then: [{ kind: 'message', text: 'Thanks for connecting, {{firstName}}! Would a short call be useful?' }],
    else: [{ kind: 'email', subject: 'Following up', text: 'Following up, {{firstName}}: happy to share notes either way.' }],
  },
];

/** The address a scale lead is given: its id at a domain with no simulator markers, so nothing bounces or replies. */
export const leadAddress = (leadId: string) => `${leadId.replaceAll('_', '.')}@example.com`;

/** Gives every lead of `campaignId` an email address (what an import with emails would leave). */
export function giveAddresses(ctx: Ctx, campaignId: string): void {
  const client = ctx.db.$client;
  const ids = client.prepare('SELECT id FROM leads WHERE campaign_id = ?').pluck().all(campaignId) as string[];
  const set = client.prepare('UPDATE leads SET email = ? WHERE id = ?');
  client.transaction(() => {
    for (const id of ids) set.run(leadAddress(id), id);
  })();
}

/** The email campaigns' indexes (`cmp_<i>`): every `every`-th campaign from `offset` on. */
export function emailIndexes(accounts: number, every: number, offset: number): number[] {
  const out: number[] = [];
  for (let i = offset; i < accounts; i += every) out.push(i);
  return out;
}

/** The simulated mailbox of email campaign `cmp_<i>`. */
export const emailMailboxId = (i: number): string => `mbx_sender_${i}`;

/**
 * The email campaigns' mailboxes, as the workspace file declares them: simulated (no SMTP), with
 * the account's time zone and the default hours and spacing, already warmed up at 100 a day. Their
 * ids are fixed, like the accounts': a sender's daily jitter derives from its id, so a mailbox
 * connected with a fresh random id gave each run its own working windows, and no two runs of the
 * same seed sent the same.
 */
export function emailMailboxes(indexes: readonly number[], timeZoneOf: (i: number) => string) {
  return indexes.map((i) => ({
    id: emailMailboxId(i),
    name: `Sender ${i}`,
    address: `sender.${i}@outreach.test`,
    warmUp: false,
    dailyLimit: 100,
    timeZone: timeZoneOf(i),
  }));
}

/**
 * Gives each email campaign (`cmp_<i>`, agent `tpl_<i>` on `acc_<i>`) the email sequence and its
 * mailbox (emailMailboxes, loaded with the workspace). The campaigns are running: each is paused
 * for the change and resumed, through the state machine. Returns the campaigns' ids.
 */
export function makeEmail(s: SequenceMods, ctx: Ctx, indexes: readonly number[]): string[] {
  return indexes.map((i) => {
    const id = `cmp_${i}`;
    s.campaigns.applyCampaignEvent(ctx, id, 'pause');
    s.agents.updateAgent(ctx, `tpl_${i}`, { steps: EMAIL_STEPS });
    s.manage.updateCampaign(ctx, id, { mailboxIds: [emailMailboxId(i)] });
    s.campaigns.applyCampaignEvent(ctx, id, 'resume');
    return id;
  });
}

export interface SendCost {
  channel: 'email' | 'linkedin';
  leads: number;
  calls: number;
  /** CPU time (user + system) of the ticks that had work, ms; idle ticks are left out. */
  cpuMs: number;
  /** Wall time of the same ticks, ms. */
  wallMs: number;
  cpuUsPerCall: number;
  byKind: Record<string, number>;
}

/**
 * One channel's probe, to measure what one send costs in CPU time per provider call: a campaign
 * of `leads` new leads, three senders, a one-step sequence (an email from three simulated
 * mailboxes, or an invitation from three always-on accounts), every other campaign paused, run by
 * the engine on the stepped clock of the simulation for `days` simulated days, ticked by
 * lockstepRound. Both channels get the same spacing (10 s, the shortest a mailbox allows) and no
 * working hours, and contact the same people (same names, same profiles), on the simulation's
 * database (the email side on its copy).
 */
async function openProbe(
  s: SequenceMods,
  e: EmailMods,
  dbPath: string,
  channel: 'email' | 'linkedin',
  leads: number,
  days: number,
  start: number,
  round: number,
) {
  const clock = new s.clock.FakeClock(start);
  const config = { engine: { workingHours: null, spacingSeconds: { min: 10, max: 10 } } };
  const ctx = s.server.createContext({ dbPath, env: 'development', config }, s.log.silentLogger(), clock, clock);
  ctx.publicUrl = PUBLIC_URL;
  const client = ctx.db.$client;
  for (const id of client.prepare("SELECT id FROM campaigns WHERE status = 'CAMPAIGN_IN_PROGRESS'").pluck().all() as string[])
    s.campaigns.applyCampaignEvent(ctx, id, 'pause');
  const tag = `${channel === 'email' ? 'em' : 'li'}${round}`;
  const accounts = [0, 1, 2].map((k) => `acc_${tag}_${k}`);
  const insertAccount = client.prepare(
    `INSERT OR IGNORE INTO accounts (id, name, status, connection_request_limit, message_limit, profile_visit_limit, post_reaction_limit,
     weekly_connection_request_limit, created_at, working_hours) VALUES (?, ?, 'connected', 200, 150, 100, 100, 1000, ?, '"always"')`,
  );
  for (const id of accounts) insertAccount.run(id, id, clock.now());
  const steps: Steps.StepInput[] =
    channel === 'email'
      ? [{ kind: 'email', subject: 'Hello {{firstName}}', text: 'Hi {{firstName}}, a short note about outreach tooling.' }]
      : [{ kind: 'invite', note: 'Hi {{firstName}}, a short note about outreach tooling.' }];
  const agent = s.agents.createAgent(ctx, { name: `Send ${tag}`, accountId: accounts[0] as string, steps });
  const mailboxIds: string[] = [];
  if (channel === 'email')
    for (const k of [0, 1, 2]) {
      const { mailbox } = await e.mailboxes.connectMailbox(ctx, {
        name: `Probe ${tag} ${k}`,
        address: `probe.${tag}.${k}@outreach.test`,
        sim: true,
        warmUp: false,
        dailyLimit: 500,
        workingHours: 'always',
        spacingSeconds: 10,
      });
      mailboxIds.push(mailbox.id);
    }
  const campaign = s.manage.createCampaign(ctx, {
    name: `Send probe ${tag}`,
    assignedTemplateId: agent.id,
    senderAccountIds: accounts,
    ...(mailboxIds.length ? { mailboxIds } : {}),
  });
  s.campaigns.applyCampaignEvent(ctx, campaign.id, 'start');
  const insert = client.prepare(
    'INSERT INTO leads (id, campaign_id, network_url, email, first_name, last_name, company_name, job_title, stage, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  client.transaction(() => {
    for (let n = 0; n < leads; n++) {
      // Nobody accepts (the simulator's marker): no inbound work lands in either probe's ticks.
      const person = `send-person-${n.toString(36)}-sim-never-accepts`;
      const id = `lead_${tag}_${n}`;
      insert.run(
        id,
        campaign.id,
        `https://www.linkedin.com/in/${person}`,
        `${person}@example.com`,
        'Ada',
        'Test',
        'Acme',
        'Engineer',
        'new',
        'manual',
        clock.now(),
        clock.now(),
      );
    }
  })();
  const engine = new s.outreach.Engine(ctx, { settings: s.outreach.resolveEngineSettings(config.engine), random: () => 0.5, holder: `send-${tag}` });
  const end = clock.now() + days * DAY;
  const totals = { calls: 0, cpuMs: 0, wallMs: 0 };
  return {
    clock,
    engine,
    end,
    /** Counts a tick of this probe: its calls, and its time when it had work (idle ticks are left out). */
    count: (t: TimedTick): void => {
      totals.calls += t.sends;
      if (t.busy) {
        totals.cpuMs += t.cpuUs / 1000;
        totals.wallMs += t.wallUs / 1000;
      }
    },
    close: async (): Promise<SendCost> => {
      await engine.stop();
      const byKind: Record<string, number> = {};
      const kinds = client.prepare('SELECT kind, count(*) AS n FROM engine_intents WHERE campaign_id = ? GROUP BY kind').all(campaign.id) as {
        kind: string;
        n: number;
      }[];
      for (const row of kinds) byKind[row.kind] = row.n;
      s.campaigns.applyCampaignEvent(ctx, campaign.id, 'pause');
      client.close();
      const { calls, cpuMs, wallMs } = totals;
      return { channel, leads, calls, cpuMs, wallMs, cpuUsPerCall: (cpuMs * 1000) / Math.max(1, calls), byKind };
    },
  };
}

/**
 * One round of both channels in lockstep (./lockstep.ts), each on its own copy of the database;
 * rounds run one after the other saw a fifth or more between them (bench/METHOD.md).
 */
async function lockstepRound(
  s: SequenceMods,
  e: EmailMods,
  paths: { linkedin: string; email: string },
  leads: number,
  days: number,
  start: number,
  round: number,
): Promise<{ linkedin: SendCost; email: SendCost }> {
  const linkedin = await openProbe(s, e, paths.linkedin, 'linkedin', leads, days, start, round);
  const email = await openProbe(s, e, paths.email, 'email', leads, days, start, round);
  await inLockstep([linkedin, email], linkedin.end, ([l, m]) => {
    linkedin.count(l);
    email.count(m);
  });
  return { linkedin: await linkedin.close(), email: await email.close() };
}

/**
 * Both channels in lockstep (lockstepRound), the email side on a copy of the database taken
 * first, so each side meets a database of the same size: a warm-up round (not counted), then
 * `rounds` rounds, each with campaigns, accounts and mailboxes of its own. Each channel's figure
 * is its round with the median CPU cost per call; the ratio judged is the median of the rounds'.
 */
export async function sendCosts(
  s: SequenceMods,
  e: EmailMods,
  dbPath: string,
  leads: number,
  days: number,
  rounds: number,
  start: number,
): Promise<{ linkedin: SendCost; email: SendCost; ratio: number; ratios: number[]; ratioOfMedians: number }> {
  const copy = join(dirname(dbPath), `send-probe-email-${basename(dbPath)}`);
  copyDatabase(s, dbPath, copy);
  try {
    const runs: Record<'linkedin' | 'email', SendCost[]> = { linkedin: [], email: [] };
    for (let r = 0; r <= rounds; r++) {
      const got = await lockstepRound(s, e, { linkedin: dbPath, email: copy }, leads, days, start + r * (days + 2) * DAY, r);
      for (const channel of ['linkedin', 'email'] as const) {
        if (got[channel].calls === 0) throw new Error(`send probe: no ${channel} sends`);
        if (r > 0) runs[channel].push(got[channel]);
      }
    }
    const median = (list: SendCost[]) => [...list].sort((a, b) => a.cpuUsPerCall - b.cpuUsPerCall)[Math.floor(list.length / 2)] as SendCost;
    const linkedin = median(runs.linkedin);
    const email = median(runs.email);
    // Judged on the median of the rounds' ratios: the two sides of a round ran tick by tick together.
    const ratios = runs.email.map((cost, i) => cost.cpuUsPerCall / (runs.linkedin[i] as SendCost).cpuUsPerCall);
    const ratio = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)] as number;
    return { linkedin, email, ratio, ratios, ratioOfMedians: email.cpuUsPerCall / linkedin.cpuUsPerCall };
  } finally {
    removeDatabase(copy);
  }
}

/** A consistent copy of the database file: its WAL checkpointed into it first, through a connection of its own. */
function copyDatabase(s: SequenceMods, from: string, to: string): void {
  const ctx = s.server.createContext({ dbPath: from, env: 'development', config: {} }, s.log.silentLogger());
  const [result] = ctx.db.$client.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
  ctx.db.$client.close();
  if (result?.busy !== 0) throw new Error('send probe: the database could not be checkpointed for its copy (another connection reads it)');
  copyFileSync(from, to);
}
