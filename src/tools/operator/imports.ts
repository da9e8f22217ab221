import { z } from 'zod';
import {
  getLeadImport,
  ImportStatus,
  ImportSummary,
  publicRow,
  RejectedRow,
  runLeadImport,
  StoppedAt,
  startLeadImport,
} from '../../core/imports/background.js';
import { IMPORT_FIELDS, previewImport, rejectedRowsCsv } from '../../core/imports/csv.js';
import { defineOperatorTool } from '../define.js';
import { CampaignId, pathId } from '../params.js';

const Csv = z.string().min(1).describe('The CSV text, UTF-8, with a header row; comma, semicolon or tab delimited.');
const ColumnMap = z
  .record(z.string(), z.enum(IMPORT_FIELDS))
  .optional()
  .describe('Header → field overrides of the automatic mapping, e.g. { "Profile": "networkUrl" }.');

export const previewImportTool = defineOperatorTool({
  name: 'preview_import',
  title: 'Preview CSV import',
  description:
    'Maps the columns and dry-runs the import: the summary a real run would give, the credits it needs and has, and every row that would not be created. Writes nothing.',
  input: z.strictObject({ campaignId: CampaignId, csv: Csv, map: ColumnMap }),
  output: z.object({
    delimiter: z.enum([',', ';', '\t']),
    columns: z.array(z.object({ header: z.string(), field: z.enum(IMPORT_FIELDS).nullable() })),
    unmappedColumns: z.array(z.string()),
    summary: ImportSummary,
    creditsNeeded: z.number().int().describe('Credits a real run would charge with unlimited credits.'),
    creditsAvailable: z.number().int().describe('Normal credits (plan and top-up) left now.'),
    shortOfCredits: z.number().int().describe('Rows a real run now would leave insufficient_credits.'),
    rows: z.array(RejectedRow).describe('Every row that would not be created, by file line.'),
    rejectedCsv: z.string().describe('Those rows as a CSV (their columns, line, status, reason); empty when there are none.'),
    stoppedAt: StoppedAt.optional(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const preview = await previewImport(ctx, { campaignId: input.campaignId, source: input.csv, map: input.map });
    return {
      delimiter: preview.delimiter,
      columns: preview.mapping,
      unmappedColumns: preview.unmappedColumns,
      summary: preview.summary,
      creditsNeeded: preview.creditsNeeded,
      creditsAvailable: preview.creditsAvailable,
      shortOfCredits: preview.shortOfCredits,
      rows: preview.rows.map(publicRow),
      rejectedCsv: preview.rows.length ? rejectedRowsCsv(preview.header, preview.delimiter, preview.rows) : '',
      ...(preview.stoppedAt ? { stoppedAt: preview.stoppedAt } : {}),
    };
  },
});

export const startImportTool = defineOperatorTool({
  name: 'start_import',
  title: 'Start CSV import',
  description: 'Starts importing the CSV into the campaign in the background (1 credit per created lead); poll get_import.',
  input: z.strictObject({ campaignId: CampaignId, csv: Csv, map: ColumnMap }),
  output: z.object({ importId: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const started = await startLeadImport(ctx, input);
    // Runs in this server process; progress is in SQLite, and a restart resumes it.
    void runLeadImport(ctx, started.importId);
    return started;
  },
});

export const getImportTool = defineOperatorTool({
  name: 'get_import',
  title: 'Get CSV import',
  description: 'The progress of an import: rows done of the total, the summary so far, and credits charged; once ended, the rows not created.',
  input: z.strictObject({ importId: pathId('import').describe('The id start_import returned.') }),
  output: ImportStatus,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => getLeadImport(ctx, input.importId),
});
