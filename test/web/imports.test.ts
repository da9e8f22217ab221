import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLeadImport, resumeLeadImports, startLeadImport } from '../../src/core/imports/background.js';
import { beginImporting } from '../../src/core/campaigns/state-machine.js';
import { campaigns, creditBalance, leadImports, leads } from '../../src/db/schema.js';
import { startTestServer, testCtx, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from './helpers.js';

const csv = (n: number, from = 0) =>
  [
    'Name;LinkedIn URL;Company;Notes',
    ...Array.from({ length: n }, (_, i) => `Person ${from + i};https://www.linkedin.com/in/import-person-${from + i};Acme;x`),
  ].join('\n');

async function until<T>(fn: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = await fn();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never finished');
}

describe('CSV import from the dashboard', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
    server.ctx.db.update(creditBalance).set({ credits: 10_000 }).run();
  });
  afterAll(() => server.close());
  const call = (name: string, args: Record<string, unknown> = {}) => appCall(server.url, cookie, name, args);

  it('previews the mapping and counts, then imports in the background with progress', async () => {
    const file = csv(250);
    const preview = await call('preview_import', { campaignId: 'cmp_noagent', csv: file });
    expect(preview.body.isError, JSON.stringify(preview.body.structuredContent)).toBe(false);
    expect(preview.body.structuredContent).toMatchObject({
      delimiter: ';',
      columns: [
        { header: 'Name', field: 'fullName' },
        { header: 'LinkedIn URL', field: 'networkUrl' },
        { header: 'Company', field: 'companyName' },
        { header: 'Notes', field: null },
      ],
      unmappedColumns: ['Notes'],
      summary: { total: 250, created: 250 },
      creditsNeeded: 250,
    });
    expect(server.ctx.db.select().from(leads).where(eq(leads.campaignId, 'cmp_noagent')).all()).toHaveLength(0);

    const started = await call('start_import', { campaignId: 'cmp_noagent', csv: file });
    const { importId } = started.body.structuredContent;
    expect(importId).toMatch(/^imp_/);
    const done = await until(
      () => call('get_import', { importId }),
      (r) => r.body.structuredContent.status !== 'running',
    );
    expect(done.body.structuredContent).toMatchObject({
      importId,
      campaignId: 'cmp_noagent',
      status: 'done',
      rowsTotal: 250,
      rowsDone: 250,
      creditsCharged: 250,
      summary: { total: 250, created: 250 },
    });
    expect(server.ctx.db.select().from(leads).where(eq(leads.campaignId, 'cmp_noagent')).all()).toHaveLength(250);
    expect(server.ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_noagent')).get()!.importing).toBe(false);
    // The same file again creates nothing and charges nothing.
    const again = await call('start_import', { campaignId: 'cmp_noagent', csv: file });
    const second = await until(
      () => call('get_import', { importId: again.body.structuredContent.importId }),
      (r) => r.body.structuredContent.status !== 'running',
    );
    expect(second.body.structuredContent).toMatchObject({ status: 'done', creditsCharged: 0, summary: { total: 250, created: 0, duplicate: 250 } });
  });

  it('refuses a file without a profile URL column before starting, and unknown ids', async () => {
    const bad = await call('start_import', { campaignId: 'cmp_noagent', csv: 'Name,Company\nA,B' });
    expect(bad.body.structuredContent.error).toMatchObject({ code: 'validation_error', details: { fields: ['csv'] } });
    expect((await call('start_import', { campaignId: 'cmp_nope', csv: csv(1) })).body.structuredContent.error.code).toBe('not_found');
    expect((await call('get_import', { importId: 'imp_nope' })).body.structuredContent.error.code).toBe('not_found');
    const mapped = await call('preview_import', {
      campaignId: 'cmp_noagent',
      csv: 'Profile,Who\nhttps://www.linkedin.com/in/mapped-one,M',
      map: { Profile: 'networkUrl', Who: 'fullName' },
    });
    expect(mapped.body.structuredContent.summary.created).toBe(1);
  });
});

describe('an import interrupted by a restart', () => {
  it('resumes after the last recorded row once nobody holds the campaign, charging nothing twice', async () => {
    const ctx = testCtx();
    ctx.db.update(creditBalance).set({ credits: 10_000 }).run();
    const { importId } = await startLeadImport(ctx, { campaignId: 'cmp_noagent', csv: csv(150) });
    // As if a server died after the first chunk of 100 was recorded: rows 0..99 exist, and its
    // importing mark is still live (the process is on another host, so nothing proves it dead).
    const { importLeads } = await import('../../src/core/imports/csv.js');
    await importLeads(ctx, { campaignId: 'cmp_noagent', source: csv(100) });
    ctx.db
      .update(leadImports)
      .set({
        rowsDone: 100,
        creditsCharged: 100,
        summary: JSON.stringify({ total: 100, created: 100, duplicate: 0, excluded: 0, validation_error: 0, insufficient_credits: 0, failed: 0 }),
      })
      .where(eq(leadImports.id, importId))
      .run();
    expect(beginImporting(ctx, 'cmp_noagent', { holder: `${importId}/dead-run`, lease: { ttlMs: 30_000, process: { host: 'elsewhere', pid: 1 } } })).toBe(true);
    expect(getLeadImport(ctx, importId).status).toBe('running');
    // A resumer waits while the dead run's mark has time left.
    expect(resumeLeadImports(ctx)).toHaveLength(0);
    ctx.clock.advance(30_001);
    await Promise.all(resumeLeadImports(ctx));
    expect(getLeadImport(ctx, importId)).toMatchObject({
      status: 'done',
      rowsDone: 150,
      creditsCharged: 150,
      summary: { total: 150, created: 150, duplicate: 0 },
      rows: [],
    });
    expect(ctx.db.select().from(leads).where(eq(leads.campaignId, 'cmp_noagent')).all()).toHaveLength(150);
    expect(ctx.db.select().from(leadImports).where(eq(leadImports.id, importId)).get()!.csv).toBeNull();
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, 'cmp_noagent')).get()!.importing).toBe(false);
  });
});
