import { describe, expect, it } from 'vitest';
import { agencySettings, markers, renderScale, runScale } from '../../bench/scale.js';
import { repoRoot } from '../../bench/lib/app.js';

/**
 * The scale simulation on a small workspace, so `npm run bench:scale` does not rot: it runs the
 * real engine over three simulated weekdays and ends with the safety auditor, as the full run does.
 */
describe('bench: the scale simulation', () => {
  it('sends within every rule over three simulated days, and reports what it measured', async () => {
    const r = await runScale(repoRoot(), { accounts: 6, leads: 1200, days: 3, probeLeads: 60, probeDays: 6, probeRounds: 1, sendRounds: 1 });
    const invitations = r.byKind.connection_request ?? 0;
    // Every account sends its full default 25 on each of the three weekdays (within the weekly
    // 100), Chicago's last day included (15:00-24:00 UTC, over as the run ends). The run is the
    // same every time (see below), so this is exact: a change that cuts an account's day short fails it.
    expect(invitations).toBe(6 * 25 * 3);
    expect(r.sends).toBe(Object.values(r.byKind).reduce((a, b) => a + b, 0));
    expect(r.audit.calls + r.audit.emails).toBe(r.sends);
    expect(r.audit.violations).toBe(0);
    expect(r.audit.accountDays).toBe(6 * 3);
    expect(r.tickCost.small.dueLeads).toBe(100);
    expect(r.tickCost.big.leadsStored).toBeGreaterThan(1200);
    expect(r.tickCost.ratio).toBeGreaterThan(0);
    expect(r.storage.commitMs).toBeGreaterThan(0);
    // The step runner: branching campaigns ran beside linear ones; both probes sent; decisions were timed.
    expect(r.branchingCampaigns).toBe(2);
    expect(r.byKind.visit ?? 0).toBeGreaterThan(0);
    if (!r.sequences || !r.floor) throw new Error('the standard run measures the sequences and the floor');
    expect(r.sequences.linear.calls).toBeGreaterThan(60);
    expect(r.sequences.branching.byKind).toMatchObject({ visit: 60, connection_request: 60, withdrawal: expect.any(Number), like: expect.any(Number) });
    expect(r.sequences.costRatio).toBeGreaterThan(0);
    expect(r.sequences.decision.big.leadsStored).toBeGreaterThan(r.sequences.decision.small.leadsStored);
    // The email channel: a quarter of the campaigns (one in four from the third: here cmp_2 of 6) emailed from a simulated mailbox, within the auditor's rules.
    expect(r.email.campaigns).toBe(1);
    expect(r.email.mailboxes).toBe(1);
    expect(r.email.sends).toBeGreaterThan(0);
    expect(r.byKind.email).toBe(r.email.sends);
    expect(r.audit.emails).toBe(r.email.sends);
    if (!r.email.cost) throw new Error('the standard run measures the send costs');
    expect(r.email.cost.email.calls).toBe(60);
    expect(r.email.cost.email.byKind).toEqual({ email: 60 });
    expect(r.email.cost.linkedin.byKind).toMatchObject({ connection_request: 60 });
    expect(r.email.cost.email.cpuUsPerCall).toBeGreaterThan(0);
    expect(r.email.cost.ratio).toBeGreaterThan(0);
    // One pair: its ratio is the figure judged, and the ratio of the medians is the same pair's.
    expect(r.email.cost.ratios).toHaveLength(1);
    expect(r.email.cost.ratio).toBe(r.email.cost.ratios[0]);
    expect(r.email.cost.ratioOfMedians).toBeCloseTo(r.email.cost.email.cpuUsPerCall / r.email.cost.linkedin.cpuUsPerCall, 10);
    expect(r.targets.map((t) => t.met)).toHaveLength(7);
    // The floor: every write of the run, replayed in lockstep with it, one transaction per
    // provider call; the replay ends on the run's own rows. The statements listed are the last weekday's.
    expect(r.floor.calls).toBe(r.sends);
    expect(r.floor.writes).toBeGreaterThan(r.floor.calls);
    expect(r.floor.transactions).toBeGreaterThanOrEqual(r.floor.calls);
    expect(r.floor.replayMs).toBeGreaterThan(0);
    expect(r.floor.replayCpuMs).toBeGreaterThan(0);
    expect(r.floor.check.differing).toEqual([]);
    expect(r.floor.check.rows).toBeGreaterThan(1200);
    expect(r.floor.day.day).toBe(2);
    expect(r.floor.day.calls).toBeGreaterThan(0);
    expect(r.floor.day.writes).toBeGreaterThan(r.floor.day.calls);
    expect(r.floor.day.top.length).toBeGreaterThan(0);
    expect(r.floor.day.replayCpuMs).toBeGreaterThan(0);
    expect(r.floor.day.replayCpuMs).toBeLessThan(r.floor.replayCpuMs);
    expect(r.cpuMs).toBeGreaterThan(0);
    const md = renderScale(r);
    expect(md).toContain('## Scale simulation: 6 accounts, 1,200 leads, 3 simulated days');
    expect(md).toContain('| The safety auditor finds 0 violations |');
    expect(md).toMatch(/\| The 3-day simulation's cost per provider call within 3× of the bare SQLite writes a call needs .* \| \d+\.\d× in CPU time \(/);
    expect(md).toContain("| Floor: the run's writes replayed in lockstep |");
    expect(md).toContain('| Statements on day 2, per call |');
    expect(md).toMatch(
      /\| An email send's cost within 1\.2× of a LinkedIn send's .* \| \d+\.\d\d×, the median of 1 lockstep rounds' ratios \(\d+\.\d\d\); medians \d+ µs a call over 60 emails/,
    );
    expect(md).toContain('| Email campaigns in the simulation | 1 of 6,');
  }, 300_000);

  it('sends the same in two runs of the same seed: every sender, mailboxes too, has a fixed id', async () => {
    // A simulated mailbox connected with a random id had working windows of its own each run (a
    // sender's daily jitter derives from its id), and nothing after its first send was the same.
    const settings = {
      accounts: 3,
      leads: 300,
      days: 2,
      probeLeads: 60,
      probeDays: 6,
      probeRounds: 1,
      sendRounds: 1,
      measureFloor: false,
      measureSequences: false,
    };
    const a = await runScale(repoRoot(), settings);
    const b = await runScale(repoRoot(), settings);
    expect(a.email.sends).toBeGreaterThan(0);
    expect(a.byKind.visit ?? 0).toBeGreaterThan(0);
    expect({ sends: b.sends, byKind: b.byKind, emails: b.email.sends }).toEqual({ sends: a.sends, byKind: a.byKind, emails: a.email.sends });
  }, 300_000);

  it('--agency runs the same simulation judged on memory, the auditor and the tick, into its own section', async () => {
    const r = await runScale(repoRoot(), { ...agencySettings(), accounts: 8, leads: 1600, days: 2, insertChunk: 500 });
    expect(r.settings.profile).toBe('agency');
    expect(r.floor).toBeNull();
    expect(r.sequences).toBeNull();
    expect(r.audit.violations).toBe(0);
    expect(r.audit.calls + r.audit.emails).toBe(r.sends);
    expect(r.sends).toBeGreaterThan(0);
    expect(r.email.sends).toBeGreaterThan(0);
    expect(r.email.cost).toBeNull();
    // The setup's chunks were all written: 200 leads in each of the 8 campaigns, plus the probe's.
    expect(r.tickCost.big.leadsStored).toBe(1600 + 100);
    expect(r.targets.map((t) => t.text)).toEqual([
      'Tick cost with 1,600 leads stored within 1.5× of 1,000 stored, same due work',
      'RSS under 1 GB throughout',
      'The safety auditor finds 0 violations',
    ]);
    const md = renderScale(r);
    expect(md.startsWith(markers('agency').begin)).toBe(true);
    expect(md).toContain('## Scale simulation at 10× (agency): 8 accounts, 1,600 leads, 2 simulated days');
    expect(md).toContain('`npm run bench:scale -- --agency`');
    expect(md).not.toContain('Floor:');
  }, 300_000);
});
