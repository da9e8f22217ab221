import { parse as parseCsv } from 'csv-parse/sync';
import { and, eq, lt } from 'drizzle-orm';
import { z } from 'zod';
import { leadImports } from '../../db/schema.js';
import { ADD_ITEM_STATUSES } from '../leads/add.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { detectDelimiter, importLeads, mapColumns, type Delimiter, type ImportField, type ImportSummaryShape } from './csv.js';

/** A running import whose runner has been silent this long is taken over (its process died). */
const STALE_MS = 60_000;

const Count = z.number().int();
/** The batch summary's counts, over the whole file. */
export const ImportSummary = z.object({
  total: Count,
  created: Count,
  duplicate: Count,
  excluded: Count,
  validation_error: Count,
  insufficient_credits: Count,
  failed: Count,
});

export const ImportStatus = z.object({
  importId: z.string(),
  campaignId: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  rowsTotal: z.number().int(),
  rowsDone: z.number().int(),
  summary: ImportSummary,
  creditsCharged: z.number().int(),
  error: z.string().optional(),
});
export type ImportStatus = z.infer<typeof ImportStatus>;

interface Parsed {
  delimiter: Delimiter;
  header: string[];
  rows: string[][];
}

/** The whole file as records, with the options of the streaming import (so both count rows alike). */
function parseFile(csv: string): Parsed {
  const text = csv.replace(/^\uFEFF/, '');
  const delimiter = detectDelimiter(text.split(/\r?\n|\r/)[0] ?? '');
  let records: string[][];
  try {
    records = parseCsv(text, { delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_empty_values: true }) as string[][];
  } catch {
    throw validationError('csv: the file is not valid CSV (check its quoting).', ['csv']);
  }
  const [header, ...rows] = records;
  if (!header || rows.length === 0) throw validationError('csv: the file is empty; it needs a header row and at least one row.', ['csv']);
  return { delimiter, header: header.map((h) => h.trim()), rows };
}

const quote = (field: string): string => `"${field.replace(/"/g, '""')}"`;
const toCsv = (delimiter: Delimiter, records: readonly string[][]): string => records.map((r) => r.map(quote).join(delimiter)).join('\r\n');

const emptySummary = (): ImportSummaryShape => ({ total: 0, ...Object.fromEntries(ADD_ITEM_STATUSES.map((s) => [s, 0])) }) as ImportSummaryShape;

/**
 * Records an import of `csv` into a campaign and returns its id; `runLeadImport` does the
 * work. Everything that can be judged up front is judged here, before anything is recorded:
 * the campaign, the CSV, and a column that maps to networkUrl.
 */
export function startLeadImport(ctx: Ctx, input: { campaignId: string; csv: string; map?: Record<string, ImportField> | undefined }): { importId: string } {
  requireCampaignRow(ctx, input.campaignId);
  const file = parseFile(input.csv);
  if (!mapColumns(file.header, input.map).some((m) => m.field === 'networkUrl')) {
    throw validationError(`csv: no column maps to networkUrl (columns: ${file.header.join(', ')}). Map one with map: { "Column": "networkUrl" }.`, ['csv']);
  }
  const importId = newId('imp');
  const now = ctx.clock.now();
  ctx.db
    .insert(leadImports)
    .values({
      id: importId,
      campaignId: input.campaignId,
      status: 'running',
      csv: input.csv,
      map: JSON.stringify(input.map ?? {}),
      rowsTotal: file.rows.length,
      summary: JSON.stringify(emptySummary()),
      heartbeatAt: now,
      createdAt: now,
    })
    .run();
  return { importId };
}

/**
 * Runs (or resumes) a recorded import: the rows after the last recorded one go through the
 * import verb, chunk by chunk, and the progress is written after each chunk. A crash between a
 * chunk and its progress line re-runs that chunk, whose rows then count as duplicates and are
 * not charged again. Never throws: a failure is recorded on the import.
 */
export async function runLeadImport(ctx: Ctx, importId: string): Promise<void> {
  const row = ctx.db.select().from(leadImports).where(eq(leadImports.id, importId)).get();
  if (row?.status !== 'running' || row.csv === null) return;
  const base = JSON.parse(row.summary) as ImportSummaryShape;
  const write = (fields: Partial<typeof leadImports.$inferInsert>) =>
    ctx.db
      .update(leadImports)
      .set({ ...fields, heartbeatAt: ctx.clock.now() })
      .where(eq(leadImports.id, importId))
      .run();
  try {
    const file = parseFile(row.csv);
    const rest = file.rows.slice(row.rowsDone);
    const map = JSON.parse(row.map) as Record<string, ImportField>;
    let total = { summary: base, creditsCharged: row.creditsCharged, rowsDone: row.rowsDone };
    if (rest.length > 0) {
      const add = (a: ImportSummaryShape, b: ImportSummaryShape): ImportSummaryShape =>
        Object.fromEntries(Object.keys(a).map((k) => [k, a[k as keyof ImportSummaryShape] + b[k as keyof ImportSummaryShape]])) as ImportSummaryShape;
      await importLeads(ctx, {
        campaignId: row.campaignId,
        source: toCsv(file.delimiter, [file.header, ...rest]),
        map,
        onProgress: (p) => {
          total = { summary: add(base, p.summary), creditsCharged: row.creditsCharged + p.creditsCharged, rowsDone: row.rowsDone + p.rowsDone };
          write({ rowsDone: total.rowsDone, summary: JSON.stringify(total.summary), creditsCharged: total.creditsCharged });
        },
      });
    }
    write({ status: 'done', csv: null, finishedAt: ctx.clock.now() });
  } catch (err) {
    if (!(err instanceof ApiError)) ctx.log.error({ err, importId }, 'lead import failed');
    const message =
      err instanceof ApiError
        ? err.message
        : 'The import stopped on an unexpected error. Rows imported so far stay; start the import again to add the rest (duplicates are free).';
    try {
      write({ status: 'failed', csv: null, error: message, finishedAt: ctx.clock.now() });
    } catch (writeErr) {
      // The database is gone (the server is stopping): the import stays running and resumes on the next start.
      ctx.log.warn({ err: writeErr, importId }, 'lead import interrupted; it resumes on the next start');
    }
  }
}

/**
 * Imports a server stopped in the middle of: their runner has been silent for a minute.
 * Each is claimed (heartbeat refreshed) before it runs, so two servers on one database do not
 * both take it. Returns the runs, for tests and shutdown.
 */
export function resumeLeadImports(ctx: Ctx): Promise<void>[] {
  const now = ctx.clock.now();
  const stale = ctx.db
    .select({ id: leadImports.id })
    .from(leadImports)
    .where(and(eq(leadImports.status, 'running'), lt(leadImports.heartbeatAt, now - STALE_MS)))
    .all();
  return stale.flatMap(({ id }) => {
    const claimed = ctx.db
      .update(leadImports)
      .set({ heartbeatAt: now })
      .where(and(eq(leadImports.id, id), eq(leadImports.status, 'running'), lt(leadImports.heartbeatAt, now - STALE_MS)))
      .run().changes;
    return claimed === 1 ? [runLeadImport(ctx, id)] : [];
  });
}

export function getLeadImport(ctx: Ctx, importId: string): ImportStatus {
  const row = ctx.db.select().from(leadImports).where(eq(leadImports.id, importId)).get();
  if (!row) throw new ApiError('not_found', `No import ${importId}. start_import returns the id.`, { fields: ['importId'] });
  return {
    importId: row.id,
    campaignId: row.campaignId,
    status: row.status as ImportStatus['status'],
    rowsTotal: row.rowsTotal,
    rowsDone: row.rowsDone,
    summary: JSON.parse(row.summary) as ImportSummaryShape,
    creditsCharged: row.creditsCharged,
    ...(row.error !== null ? { error: row.error } : {}),
  };
}
