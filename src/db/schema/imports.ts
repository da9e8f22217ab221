import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * CSV imports started from the dashboard, which run in the server's background. The file is
 * kept until the import ends, so a server restarted mid-import resumes after the last row it
 * recorded; progress is here so `get_import` answers from any process, after any restart.
 */
export const leadImports = sqliteTable(
  'lead_imports',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `imp_…` */
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** running | done | failed */
    status: text('status').notNull(),
    /** The CSV text; cleared when the import ends. */
    csv: text('csv'),
    /** JSON object header → field, as given. */
    map: text('map').notNull().default('{}'),
    rowsTotal: integer('rows_total').notNull(),
    rowsDone: integer('rows_done').notNull().default(0),
    /** JSON: the batch summary's counts so far. */
    summary: text('summary').notNull(),
    creditsCharged: integer('credits_charged').notNull().default(0),
    error: text('error'),
    /** The file line of a malformed record that stopped the import, if one did. */
    stoppedLine: integer('stopped_line'),
    /** JSON array: the file's header row, for the CSV of rejected rows. */
    header: text('header').notNull().default('[]'),
    delimiter: text('delimiter').notNull().default(','),
    /** Wall ms of the runner's last progress. */
    heartbeatAt: integer('heartbeat_at').notNull(),
    createdAt: integer('created_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('lead_imports_status').on(t.status)],
);

/** The rows of a dashboard import that were not created, with why, to fix and import again. */
export const leadImportRows = sqliteTable(
  'lead_import_rows',
  {
    importId: text('import_id').notNull(),
    /** The file line the row starts on (the header is line 1). */
    line: integer('line').notNull(),
    /** An add status other than created. */
    status: text('status').notNull(),
    field: text('field'),
    message: text('message').notNull(),
    /** JSON array: the row's values as in the file. */
    cells: text('cells').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.line] })],
);
