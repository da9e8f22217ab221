import { loadDist } from './app.js';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Csv from '../../src/core/imports/csv.js';
import type * as Add from '../../src/core/leads/add.js';
import type * as CampaignManage from '../../src/core/campaigns/manage.js';
import type * as Demo from '../../src/core/seed/demo.js';
import type { App } from './app.js';

/** What the CSV import case measured. */
export interface ImportBench {
  rows: number;
  /** `outreach import` as a user runs it: process start to exit, wall time. */
  cliMs: number;
  /** The import verb in-process, streaming the same file. */
  inProcessMs: number;
  /** The same rows as 100 add_leads_batch verb calls in-process, each into a fresh campaign. */
  batchAddsMs: number;
}

export const IMPORT_ROWS = 10_000;
/** Rounds of the import against the batch adds, taken in turns (medians reported). */
const ROUNDS = 3;
export const IMPORT_TARGET_MS = 10_000;
export const IMPORT_VS_BATCH = 1.5;

function csvOf(rows: number, salt: string): string {
  const lines = ['First Name,Last Name,Company,Title,LinkedIn URL'];
  for (let i = 0; i < rows; i++) lines.push(`First${i},Last${i},"Company ${i % 500}, Inc",Engineer,https://www.linkedin.com/in/${salt}-${i}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Imports a 10,000-row CSV three ways into fresh campaigns of one scratch database (fresh
 * profiles each time, so every row is a created lead and charges a credit): the CLI, the
 * import verb in-process, and 100 batch adds in-process.
 */
export async function benchImport(app: App, root: string, dir: string): Promise<ImportBench> {
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  const csv = await load<typeof Csv>('core/imports/csv.js');
  const add = await load<typeof Add>('core/leads/add.js');
  const manage = await load<typeof CampaignManage>('core/campaigns/manage.js');
  const demo = await load<typeof Demo>('core/seed/demo.js');
  const db = join(dir, 'import-bench.db');
  const ctx = app.server.createContext({ dbPath: db, env: 'development' }, app.log.silentLogger());
  demo.ensureDemo(ctx);
  ctx.db.update(app.schema.creditBalance).set({ credits: 1_000_000 }).run();
  const cliCampaign = manage.createCampaign(ctx, { name: 'cli import' }).id;
  const verbCampaign = manage.createCampaign(ctx, { name: 'verb import' }).id;
  const batchCampaign = manage.createCampaign(ctx, { name: 'batch adds' }).id;
  const cliFile = join(dir, 'cli.csv');
  writeFileSync(cliFile, csvOf(IMPORT_ROWS, 'cli'));
  try {
    // Both paths warmed up first (JIT, prepared statements) on a campaign of their own, so
    // neither pays for the other's first run.
    const warm = manage.createCampaign(ctx, { name: 'warm-up' }).id;
    await csv.importLeads(ctx, { campaignId: warm, source: csvOf(500, 'warm-import') });
    add.addLeadsBatch(
      ctx,
      warm,
      Array.from({ length: 100 }, (_, i) => ({ networkUrl: `https://www.linkedin.com/in/warm-batch-${i}` })),
    );
    const { createReadStream } = await import('node:fs');
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // Three rounds in turns, the order swapped each round, each side into a campaign of its own:
    // whichever runs second finds 10,000 more leads indexed, so neither side always pays for that.
    const batchTimes: number[] = [];
    const importTimes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batchSide = (): void => {
        const campaign = round === 0 ? batchCampaign : manage.createCampaign(ctx, { name: `batch adds ${round}` }).id;
        const items = Array.from({ length: IMPORT_ROWS }, (_, i) => ({
          firstName: `First${i}`,
          lastName: `Last${i}`,
          companyName: `Company ${i % 500}, Inc`,
          jobTitle: 'Engineer',
          networkUrl: `https://www.linkedin.com/in/batch-${round}-${i}`,
        }));
        const t0 = performance.now();
        for (let i = 0; i < IMPORT_ROWS; i += 100) add.addLeadsBatch(ctx, campaign, items.slice(i, i + 100));
        batchTimes.push(performance.now() - t0);
      };
      const importSide = async (): Promise<void> => {
        const campaign = round === 0 ? verbCampaign : manage.createCampaign(ctx, { name: `verb import ${round}` }).id;
        const file = join(dir, `verb-${round}.csv`);
        writeFileSync(file, csvOf(IMPORT_ROWS, `verb-${round}`));
        const t0 = performance.now();
        const r = await csv.importLeads(ctx, { campaignId: campaign, source: createReadStream(file) });
        importTimes.push(performance.now() - t0);
        if (r.summary.created !== IMPORT_ROWS) throw new Error(`in-process import created ${r.summary.created} of ${IMPORT_ROWS}`);
      };
      if (round % 2 === 0) {
        batchSide();
        await importSide();
      } else {
        await importSide();
        batchSide();
      }
    }
    const batchAddsMs = median(batchTimes);
    const inProcessMs = median(importTimes);

    ctx.db.$client.close();
    const t = performance.now();
    const out = execFileSync(
      process.execPath,
      [join(root, 'bin', 'outreach.js'), 'import', '--campaign', cliCampaign, '--file', cliFile, '--db', db, '--json'],
      {
        encoding: 'utf8',
      },
    );
    const cliMs = performance.now() - t;
    const created = (JSON.parse(out) as { summary: { created: number } }).summary.created;
    if (created !== IMPORT_ROWS) throw new Error(`outreach import created ${created} of ${IMPORT_ROWS}`);
    return { rows: IMPORT_ROWS, cliMs, inProcessMs, batchAddsMs };
  } finally {
    if (ctx.db.$client.open) ctx.db.$client.close();
  }
}
