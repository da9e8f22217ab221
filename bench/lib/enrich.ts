import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadDist } from './app.js';
import { median } from './stats.js';
import type * as Clock from '../../src/core/clock.js';
import type * as Profiles from '../../src/core/network/profiles.js';
import type * as Enrich from '../../src/core/outreach/enrich.js';
import type * as State from '../../src/core/outreach/state.js';
import type * as SeedFile from '../../src/core/seed/file.js';
import type * as SeedLoad from '../../src/core/seed/load.js';
import type * as Log from '../../src/log.js';
import type * as Server from '../../src/server.js';
import type * as Outreach from '../../src/workers/outreach/index.js';

/**
 * Enrichment's cost per lead (issue 34): the engine looking a lead known only by its URL up
 * through its sender and filling it in (`enrichLead`: the admission, the provider call and the
 * record; the engine plans the lead again after it, as after any lookup), against the profile lookup alone (`lookupProfile`, what the
 * lookup_profile tool runs: the same quota admission and the same provider call), both on the
 * simulated network over one file database. Rounds alternate, each on leads of its own; the
 * figure is the median round's CPU microseconds per lead (the process's user and system time,
 * which another process on a shared machine does not inflate as it does wall time; the wall
 * figures are kept beside them). Target: at most 1.2× the lookup alone.
 */

export const ENRICH_TARGET_RATIO = 1.2;

export interface EnrichBench {
  leadsPerRound: number;
  rounds: number;
  /** Median over rounds of the CPU microseconds per lead. */
  lookupUs: number;
  enrichUs: number;
  /** Median over rounds of the wall microseconds per lead. */
  lookupWallUs: number;
  enrichWallUs: number;
  /** enrichUs / lookupUs. */
  ratio: number;
}

interface Mods {
  clock: typeof Clock;
  server: typeof Server;
  log: typeof Log;
  seedFile: typeof SeedFile;
  seedLoad: typeof SeedLoad;
  profiles: typeof Profiles;
  enrich: typeof Enrich;
  state: typeof State;
  outreach: typeof Outreach;
}

async function loadMods(root: string): Promise<Mods> {
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  return {
    clock: await load('core/clock.js'),
    server: await load('server.js'),
    log: await load('log.js'),
    seedFile: await load('core/seed/file.js'),
    seedLoad: await load('core/seed/load.js'),
    profiles: await load('core/network/profiles.js'),
    enrich: await load('core/outreach/enrich.js'),
    state: await load('core/outreach/state.js'),
    outreach: await load('workers/outreach/index.js'),
  };
}

const START = Date.parse('2026-11-23T10:00:00Z');
const CAMPAIGN = 'cmp_enrich';
const ACCOUNT = 'acc_enrich';

export async function runEnrich(root: string, opts: { leadsPerRound?: number; rounds?: number } = {}): Promise<EnrichBench> {
  const leadsPerRound = opts.leadsPerRound ?? 2_000;
  const rounds = opts.rounds ?? 7;
  const m = await loadMods(root);
  const dir = mkdtempSync(join(os.tmpdir(), 'outreach-enrich-'));
  try {
    const config = {
      limits: { accountSpacingSeconds: { profile_lookup: 0 }, daily: { profileLookups: { classic: 10_000_000, salesNavigator: 10_000_000 } } },
    };
    const clock = new m.clock.FakeClock(START);
    const ctx = m.server.createContext({ dbPath: join(dir, 'enrich.db'), env: 'development', config }, m.log.silentLogger(), clock, clock);
    m.seedLoad.loadWorkspace(
      ctx,
      m.seedFile.WorkspaceFile.parse({
        apiKeys: [{ key: `sk_test_${'e'.repeat(32)}`, name: 'bench' }],
        accounts: [{ id: ACCOUNT, name: 'Enrich', status: 'connected', workingHours: 'always' }],
        agents: [{ id: 'tpl_enrich', accountId: ACCOUNT, connectionNote: 'Hi {{firstName|there}}, glad to connect.', messages: [] }],
        campaigns: [{ id: CAMPAIGN, name: 'Enrich', status: 'CAMPAIGN_IN_PROGRESS', assignedTemplateId: 'tpl_enrich', leads: [] }],
      }),
      { reset: false },
    );
    // Leads known only by their URL: one set per round and kind, so every enrichment is a first one.
    const insert = ctx.db.$client.prepare('INSERT INTO leads (id, campaign_id, network_url, created_at, updated_at, next_action_at) VALUES (?, ?, ?, ?, ?, ?)');
    const url = (kind: string, round: number, i: number) => `https://www.linkedin.com/in/bench-${kind}-${round}-${i}`;
    ctx.db.$client.transaction(() => {
      for (let r = 0; r <= rounds; r++)
        for (let i = 0; i < leadsPerRound; i++) insert.run(`lead_e${r}_${i}`, CAMPAIGN, url('enrich', r, i), START, START, START);
    })();
    const info = m.state.loadCampaignInfo(ctx, CAMPAIGN);
    if (!info) throw new Error('enrich bench: no campaign');
    const settings = m.outreach.resolveEngineSettings({ workingHours: null });
    const now = clock.now();

    /** A round's CPU and wall microseconds per lead. */
    type Round = { cpu: number; wall: number };
    const timed = async (work: () => Promise<void>): Promise<Round> => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await work();
      const wall = ((performance.now() - t0) * 1000) / leadsPerRound;
      const c = process.cpuUsage(c0);
      return { cpu: (c.user + c.system) / leadsPerRound, wall };
    };
    const lookupRound = (r: number): Promise<Round> =>
      timed(async () => {
        for (let i = 0; i < leadsPerRound; i++) await m.profiles.lookupProfile(ctx, { accountId: ACCOUNT, networkUrl: url('lookup', r, i), depth: 'basic' });
      });
    const enrichRound = (r: number): Promise<Round> =>
      timed(async () => {
        for (let i = 0; i < leadsPerRound; i++) {
          const outcome = await m.enrich.enrichLead(
            ctx,
            { leadId: `lead_e${r}_${i}`, accountId: ACCOUNT, networkUrl: url('enrich', r, i), due: START },
            info,
            settings,
            now,
          );
          if (outcome.kind !== 'enriched') throw new Error(`enrich bench: a lookup ${outcome.kind}`);
        }
      });
    // A warm-up of each, then alternating rounds (which goes first alternates too).
    await lookupRound(rounds);
    const written = ctx.db.$client.prepare('SELECT count(*) FROM lead_enrichment').pluck();
    if (written.get() !== 0) throw new Error('enrich bench: the lookup alone wrote an enrichment');
    await enrichRound(rounds);
    const lookups: Round[] = [];
    const enrichments: Round[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        lookups.push(await lookupRound(r));
        enrichments.push(await enrichRound(r));
      } else {
        enrichments.push(await enrichRound(r));
        lookups.push(await lookupRound(r));
      }
    }
    const named = ctx.db.$client.prepare('SELECT count(*) FROM leads WHERE campaign_id = ? AND first_name IS NOT NULL').pluck().get(CAMPAIGN) as number;
    if (named !== (rounds + 1) * leadsPerRound) throw new Error(`enrich bench: ${named} of ${(rounds + 1) * leadsPerRound} leads named`);
    ctx.db.$client.close();
    const lookupUs = median(lookups.map((r) => r.cpu));
    const enrichUs = median(enrichments.map((r) => r.cpu));
    const lookupWallUs = median(lookups.map((r) => r.wall));
    const enrichWallUs = median(enrichments.map((r) => r.wall));
    return { leadsPerRound, rounds, lookupUs, enrichUs, lookupWallUs, enrichWallUs, ratio: enrichUs / lookupUs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
