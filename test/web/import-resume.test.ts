import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { Ctx } from '../../src/core/context.js';
import type { FaultPoint } from '../../src/core/faults.js';
import { getLeadImport, resumeLeadImports, runLeadImport, startLeadImport } from '../../src/core/imports/background.js';
import { SqliteSimInboxStore } from '../../src/core/network/sim-inbox-store.js';
import { createLimiter, resolveLimits } from '../../src/core/ratelimit/index.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { openDatabase } from '../../src/db/connection.js';
import { creditBalance, leads } from '../../src/db/schema.js';
import { silentLogger } from '../../src/log.js';
import { SimulatedNetwork } from '../../src/network/sim/index.js';
import { fixture } from '../helpers.js';

const csv = (n: number) =>
  ['Name;LinkedIn URL', ...Array.from({ length: n }, (_, i) => `Person ${i};https://www.linkedin.com/in/resume-person-${i}`)].join('\n');

/** A server's context over a database file: a second one on the same file is the server after a restart. */
function fileCtx(path: string, clock: FakeClock): Ctx & { clock: FakeClock } {
  const db = openDatabase(path);
  const network = new SimulatedNetwork({ clock, inbox: new SqliteSimInboxStore(db, clock) });
  return { db, clock, log: silentLogger(), env: 'development', limits: createLimiter(clock, resolveLimits()), simClock: clock, network };
}

/** The process dies: its database connection goes, and the error stops the run where it stands. */
class Killed extends Error {}

describe('a dashboard import killed as it records a chunk, then resumed', () => {
  it('counts the rows it had created as created, charged once, and calls none of them a duplicate', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'outreach-import-kill-')), 'o.db');
    const clock = new FakeClock();
    const first = fileCtx(path, clock);
    loadWorkspace(first, WorkspaceFile.parse(fixture()), { reset: false });
    first.db.update(creditBalance).set({ credits: 10_000 }).run();
    const { importId } = await startLeadImport(first, { campaignId: 'cmp_noagent', csv: csv(300) });
    let chunks = 0;
    // Killed while the second chunk of 100 is recorded: its leads were inserted and charged in
    // the same moment. Before chunk and progress shared a transaction, those 100 stayed created
    // and charged while the record said 100 rows done, so the resumed run called them duplicates.
    first.faults = {
      hit: (point: FaultPoint) => {
        if (point !== 'imports.progress' || ++chunks < 2) return;
        first.db.$client.close();
        throw new Killed('killed');
      },
    };
    await runLeadImport(first, importId);

    const after = fileCtx(path, clock);
    expect(getLeadImport(after, importId)).toMatchObject({ status: 'running', rowsDone: 100, creditsCharged: 100 });
    // The dead run's importing mark names this process, which is alive: it lapses with its lease.
    clock.advance(10 * 60_000);
    await Promise.all(resumeLeadImports(after));
    const done = getLeadImport(after, importId);
    expect(done).toMatchObject({ status: 'done', rowsDone: 300, creditsCharged: 300, summary: { total: 300, created: 300, duplicate: 0 }, rows: [] });
    expect(after.db.select().from(leads).where(eq(leads.campaignId, 'cmp_noagent')).all()).toHaveLength(300);
    expect(after.db.select().from(creditBalance).get()!.credits).toBe(10_000 - 300);
    after.db.$client.close();
  });
});

describe('a dashboard import whose chunk has no row for batch add', () => {
  it('records that chunk’s rows and progress too, in a transaction of its own', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'outreach-import-invalid-')), 'o.db');
    const ctx = fileCtx(path, new FakeClock());
    loadWorkspace(ctx, WorkspaceFile.parse(fixture()), { reset: false });
    ctx.db.update(creditBalance).set({ credits: 10_000 }).run();
    // The first 100 rows name a person in more characters than a lead keeps: the import refuses
    // them before batch add sees the chunk. The 20 after them are added.
    const long = 'x'.repeat(1_000);
    const file = [
      'Name;LinkedIn URL',
      ...Array.from({ length: 100 }, (_, i) => `${long};https://www.linkedin.com/in/too-long-${i}`),
      ...Array.from({ length: 20 }, (_, i) => `Person ${i};https://www.linkedin.com/in/fits-${i}`),
    ].join('\n');
    const { importId } = await startLeadImport(ctx, { campaignId: 'cmp_noagent', csv: file });
    await runLeadImport(ctx, importId);
    const done = getLeadImport(ctx, importId);
    expect(done).toMatchObject({ status: 'done', rowsDone: 120, creditsCharged: 20, summary: { total: 120, created: 20, validation_error: 100 } });
    expect(done?.rows).toHaveLength(100);
    expect(done?.rows?.[0]).toMatchObject({ line: 2, status: 'validation_error', field: 'fullName' });
    expect(ctx.db.select().from(leads).where(eq(leads.campaignId, 'cmp_noagent')).all()).toHaveLength(20);
    ctx.db.$client.close();
  });
});
