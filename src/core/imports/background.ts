import { z } from 'zod';
import type { leadImports } from '../../db/schema.js';
import { transaction } from '../../db/tx.js';
import { findCampaignRow, requireCampaignRow } from '../campaigns/campaign.js';
import { beginImporting, importingHolder } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { ApiError } from '../errors.js';
import { failpoint } from '../faults.js';
import { newId } from '../ids.js';
import { ADD_ITEM_STATUSES } from '../leads/add.js';
import {
  addSummaries,
  checkImportable,
  IMPORT_FIELDS,
  importLeads,
  importLeaseMs,
  newImportHolder,
  openFile,
  rejectedRowsCsv,
  type Delimiter,
  type ImportField,
  type ImportStop,
  type ImportSummaryShape,
  type RowReport,
} from './csv.js';
import { noteAuditTarget } from '../audit/current.js';
import {
  importRowsOf,
  insertLeadImport,
  leadImportRow,
  leadImportStatus,
  runningImportOf,
  runningImports,
  updateLeadImport,
  upsertImportRow,
} from './store.js';

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

/** A row that was not created: its file line, its status and why. */
export const RejectedRow = z.object({
  line: z.number().int(),
  status: z.enum(ADD_ITEM_STATUSES).exclude(['created']),
  field: z.enum(IMPORT_FIELDS).optional(),
  message: z.string(),
});
export type RejectedRow = z.infer<typeof RejectedRow>;

export const StoppedAt = z
  .object({ line: z.number().int(), message: z.string() })
  .describe('The malformed line that stopped the import; rows before it went in.');

export const ImportStatus = z.object({
  importId: z.string(),
  campaignId: z.string(),
  status: z.enum(['running', 'done', 'failed']),
  rowsTotal: z.number().int(),
  rowsDone: z.number().int(),
  summary: ImportSummary,
  creditsCharged: z.number().int(),
  error: z.string().optional(),
  stoppedAt: StoppedAt.optional(),
  rows: z.array(RejectedRow).optional().describe('Once the import has ended: every row that was not created.'),
  rejectedCsv: z.string().optional().describe('Once the import has ended with rows not created: those rows as a CSV (their columns, line, status, reason).'),
});
export type ImportStatus = z.infer<typeof ImportStatus>;

/** A report as the tools show it: the cells stay for the CSV. */
export const publicRow = (r: RowReport): RejectedRow => ({ line: r.line, status: r.status, ...(r.field ? { field: r.field } : {}), message: r.message });

const emptySummary = (): ImportSummaryShape => ({ total: 0, ...Object.fromEntries(ADD_ITEM_STATUSES.map((s) => [s, 0])) }) as ImportSummaryShape;

/**
 * Records an import of `csv` into a campaign and returns its id; `runLeadImport` does the
 * work. Everything that can be judged up front is judged here, before anything is recorded:
 * the campaign and whether it can take an import now, the header, and a column that maps to
 * networkUrl. The rows counted are those before any malformed line, where the import will stop.
 */
export async function startLeadImport(
  ctx: Ctx,
  input: { campaignId: string; csv: string; map?: Record<string, ImportField> | undefined },
): Promise<{ importId: string }> {
  requireCampaignRow(ctx, input.campaignId);
  let file: Awaited<ReturnType<typeof openFile>>;
  try {
    file = await openFile(input.csv, input.map);
  } catch (err) {
    // The dashboard sends the file as the `csv` argument: name that, not the CLI's --file.
    if (err instanceof ApiError && err.details.fields?.[0] === 'file') {
      throw new ApiError(err.code, err.message.replace(/^file: /, 'csv: ').replace('--map "Column=networkUrl"', 'map: { "Column": "networkUrl" }'), {
        fields: ['csv'],
      });
    }
    throw err;
  }
  let rowsTotal = 0;
  counting: for await (const batch of file.batches) {
    for (const item of batch) {
      if (item.kind === 'malformed') break counting;
      rowsTotal++;
    }
  }
  return transaction(ctx.db, () => {
    checkImportable(ctx, input.campaignId);
    const running = runningImportOf(ctx, input.campaignId);
    if (running) {
      throw new ApiError(
        'conflict',
        `Import ${running.id} into campaign ${input.campaignId} has not finished. Wait for it (get_import), then import this file.`,
      );
    }
    const importId = newId('imp');
    noteAuditTarget(importId);
    const now = ctx.clock.now();
    insertLeadImport(ctx, {
      id: importId,
      campaignId: input.campaignId,
      status: 'running',
      csv: input.csv,
      map: JSON.stringify(input.map ?? {}),
      rowsTotal,
      summary: JSON.stringify(emptySummary()),
      header: JSON.stringify(file.header),
      delimiter: file.delimiter,
      heartbeatAt: now,
      createdAt: now,
    });
    return { importId };
  });
}

/**
 * Runs (or resumes) a recorded import: the rows after the last recorded one go through the
 * import verb, chunk by chunk, and the progress and the rows not created are written with each
 * chunk, in its transaction. A run killed anywhere leaves the rows it created counted as
 * created (and charged once); a resumed run starts after them, so none is called a duplicate.
 *
 * The run first takes the campaign's importing mark under a holder of its own; when someone
 * live holds it (another run of this import, or another import), it leaves the import to
 * `resumeLeadImports`. Never throws: a failure is recorded on the import.
 */
export async function runLeadImport(ctx: Ctx, importId: string): Promise<void> {
  const row = leadImportRow(ctx, importId);
  if (row?.status !== 'running' || row.csv === null) return;
  const holder = newImportHolder(importId);
  const ttlMs = importLeaseMs(ctx);
  const claimed = transaction(ctx.db, () => {
    const current = leadImportStatus(ctx, importId);
    return current?.status === 'running' && beginImporting(ctx, row.campaignId, { holder, lease: { ttlMs } });
  });
  if (!claimed) return;
  const base = JSON.parse(row.summary) as ImportSummaryShape;
  const write = (fields: Partial<typeof leadImports.$inferInsert>) => updateLeadImport(ctx, importId, { ...fields, heartbeatAt: ctx.clock.now() });
  try {
    const result = await importLeads(ctx, {
      campaignId: row.campaignId,
      source: row.csv,
      map: JSON.parse(row.map) as Record<string, ImportField>,
      skipRows: row.rowsDone,
      holder,
      onProgress: (p) =>
        transaction(ctx.db, () => {
          failpoint(ctx, 'imports.progress', importId);
          write({
            rowsDone: row.rowsDone + p.rowsDone,
            summary: JSON.stringify(addSummaries(base, p.summary)),
            creditsCharged: row.creditsCharged + p.creditsCharged,
          });
          for (const r of p.rows) {
            upsertImportRow(ctx, importId, { line: r.line, status: r.status, field: r.field ?? null, message: r.message, cells: JSON.stringify(r.cells) });
          }
        }),
    });
    if (result.stoppedAt)
      write({ status: 'failed', csv: null, error: result.stoppedAt.message, stoppedLine: result.stoppedAt.line, finishedAt: ctx.clock.now() });
    else write({ status: 'done', csv: null, finishedAt: ctx.clock.now() });
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
 * Runs the recorded imports nobody is running: those whose campaign's importing mark is free
 * (its holder died, or stopped renewing), as after a server was killed. An import waiting
 * behind another import of its campaign starts when that one ends. Called at start-up and then
 * periodically by the server, so an import stranded by a quick restart resumes without a second
 * one. Returns the runs started, for tests and shutdown.
 */
export function resumeLeadImports(ctx: Ctx): Promise<void>[] {
  const now = ctx.clock.now();
  const running = runningImports(ctx);
  const started = new Set<string>();
  return running.flatMap(({ id, campaignId }) => {
    const campaign = findCampaignRow(ctx, campaignId);
    if (!campaign || started.has(campaignId) || importingHolder(campaign, now) !== null) return [];
    started.add(campaignId);
    return [runLeadImport(ctx, id)];
  });
}

export function getLeadImport(ctx: Ctx, importId: string): ImportStatus {
  const row = leadImportRow(ctx, importId);
  if (!row) throw new ApiError('not_found', `No import ${importId}. start_import returns the id.`, { fields: ['importId'] });
  const status: ImportStatus = {
    importId: row.id,
    campaignId: row.campaignId,
    status: row.status as ImportStatus['status'],
    rowsTotal: row.rowsTotal,
    rowsDone: row.rowsDone,
    summary: JSON.parse(row.summary) as ImportSummaryShape,
    creditsCharged: row.creditsCharged,
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.stoppedLine !== null ? { stoppedAt: { line: row.stoppedLine, message: row.error ?? '' } satisfies ImportStop } : {}),
  };
  if (row.status === 'running') return status;
  const rejected: RowReport[] = importRowsOf(ctx, importId).map((r) => ({
    line: r.line,
    status: r.status as RowReport['status'],
    ...(r.field !== null ? { field: r.field as ImportField } : {}),
    message: r.message,
    cells: JSON.parse(r.cells) as string[],
  }));
  return {
    ...status,
    rows: rejected.map(publicRow),
    ...(rejected.length ? { rejectedCsv: rejectedRowsCsv(JSON.parse(row.header) as string[], row.delimiter as Delimiter, rejected) } : {}),
  };
}
