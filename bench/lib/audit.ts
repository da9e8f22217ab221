import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadDist } from './app.js';
import { median } from './stats.js';
import type * as Clock from '../../src/core/clock.js';
import type * as Add from '../../src/core/leads/add.js';
import type * as Scope from '../../src/core/audit/scope.js';
import type * as SeedFile from '../../src/core/seed/file.js';
import type * as SeedLoad from '../../src/core/seed/load.js';
import type * as Log from '../../src/log.js';
import type * as Server from '../../src/server.js';

/**
 * The audit trail's cost on a write (issue 38): a batch of 100 adds (`addLeadsBatch`, what
 * add_leads_batch runs) with the trail watching, as the pipeline runs every write (the call's
 * scope, the hook on its transaction, the event and its target rows), against the same batch
 * alone, on one file database. Rounds alternate, each batch of fresh leads, the clock a second
 * on between rounds as between two calls (a lead's id begins with the millisecond it was made);
 * the figure is the median round of 201: at 41 rounds one build gave -3.6% to +34.8% from run to
 * run. Target: the audit write adds at most 10% to the batch.
 */

export const AUDIT_TARGET_RATIO = 1.1;

export interface AuditBench {
  batchSize: number;
  rounds: number;
  /** Median microseconds per batch. */
  plainUs: number;
  auditedUs: number;
  ratio: number;
  /** Events the audited batches left: one per batch. */
  events: number;
}

const START = Date.parse('2026-11-23T10:00:00Z');
const CAMPAIGN = 'cmp_audit';

export async function runAudit(root: string, opts: { batchSize?: number; rounds?: number } = {}): Promise<AuditBench> {
  const batchSize = opts.batchSize ?? 100;
  const rounds = opts.rounds ?? 201;
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  const clock = await load<typeof Clock>('core/clock.js');
  const server = await load<typeof Server>('server.js');
  const log = await load<typeof Log>('log.js');
  const seedFile = await load<typeof SeedFile>('core/seed/file.js');
  const seedLoad = await load<typeof SeedLoad>('core/seed/load.js');
  const add = await load<typeof Add>('core/leads/add.js');
  const scope = await load<typeof Scope>('core/audit/scope.js');
  const dir = mkdtempSync(join(os.tmpdir(), 'outreach-audit-'));
  try {
    const fake = new clock.FakeClock(START);
    const ctx = server.createContext({ dbPath: join(dir, 'audit.db'), env: 'development', config: {} }, log.silentLogger(), fake, fake);
    seedLoad.loadWorkspace(
      ctx,
      seedFile.WorkspaceFile.parse({
        apiKeys: [{ key: `sk_test_${'a'.repeat(32)}`, name: 'bench' }],
        credits: { credits: 10_000_000, topUpCredits: 0, lookalikeCredits: 0, lookalikeTopUpCredits: 0 },
        campaigns: [{ id: CAMPAIGN, name: 'Audit', status: 'READY_TO_SEND', leads: [] }],
      }),
      { reset: false },
    );
    const keyId = ctx.db.$client.prepare('SELECT id FROM api_keys LIMIT 1').pluck().get() as string;
    const batch = (kind: string, round: number) =>
      Array.from({ length: batchSize }, (_, i) => ({
        networkUrl: `https://www.linkedin.com/in/audit-${kind}-${round}-${i}`,
        firstName: 'Ada',
        lastName: `${i}`,
      }));
    const call = {
      actor: { type: 'key' as const, id: keyId },
      action: 'add_leads_batch',
      targets: [CAMPAIGN],
      summary: `Add leads (batch): ${batchSize} items`,
    };
    const plain: number[] = [];
    const audited: number[] = [];
    for (let r = -2; r < rounds; r++) {
      fake.advance(1000);
      const a = batch('plain', r);
      const b = batch('audited', r);
      const timePlain = () => {
        const t0 = performance.now();
        add.addLeadsBatch(ctx, CAMPAIGN, a);
        return performance.now() - t0;
      };
      const timeAudited = async () => {
        const t0 = performance.now();
        await scope.withAudit(ctx, call, () => add.addLeadsBatch(ctx, CAMPAIGN, b));
        return performance.now() - t0;
      };
      // Taking turns at going first, so neither side always meets the table one batch bigger.
      let p: number;
      let q: number;
      if (r % 2 === 0) {
        p = timePlain();
        q = await timeAudited();
      } else {
        q = await timeAudited();
        p = timePlain();
      }
      // The first two rounds warm the statements and the JIT and are not counted.
      if (r >= 0) {
        plain.push(p * 1000);
        audited.push(q * 1000);
      }
    }
    const events = ctx.db.$client.prepare("SELECT count(*) FROM audit_events WHERE action = 'add_leads_batch'").pluck().get() as number;
    ctx.db.$client.close();
    const plainUs = median(plain);
    const auditedUs = median(audited);
    return { batchSize, rounds, plainUs, auditedUs, ratio: auditedUs / plainUs, events };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
