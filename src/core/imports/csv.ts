import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parse } from 'csv-parse';
import { rehearse, transaction } from '../../db/tx.js';
import { hasPendingJob } from '../lookalike/store.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import { beginImporting, endImporting, importingHolder, isFinished, neverRestarted, renewImporting } from '../campaigns/state-machine.js';
import type { Ctx } from '../context.js';
import { defuseFormula } from '../text.js';
import { GRANT_HINT, leadCreditsAvailable } from '../credits/charge.js';
import { ApiError, validationError } from '../errors.js';
import { ADD_ITEM_STATUSES, addLeadsBatch, profileUrlProblem, type AddItemStatus, type AddLeadsBatchResult, type NewBatchLead } from '../leads/add.js';
import { LEAD_FIELD_MAX } from '../leads/fields.js';
import { wordsProblem } from '../validation.js';
import { setRehearsalCredits } from '../credits/store.js';

/**
 * CSV lead import. Rows go in file order, in chunks of at most 100, through the batch-add
 * verb, so credits, duplicates, exclusions and per-row statuses are exactly batch add's.
 * Each chunk is one transaction; a chunk that committed is, on a re-run, all duplicates, and
 * duplicates are free: an interrupted import run again charges no credit twice, and the
 * same file imported twice creates nothing the second time.
 */

/** The fields a column can map to: batch add's fields. */
export const IMPORT_FIELDS = ['networkUrl', ...(Object.keys(LEAD_FIELD_MAX) as (keyof typeof LEAD_FIELD_MAX)[])] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

export const CHUNK_SIZE = 100;
export type Delimiter = ',' | ';' | '\t';

/** How long an import's importing mark lasts unless renewed; renewed every third of it. */
export const DEFAULT_IMPORT_LEASE_MS = 30_000;
export const importLeaseMs = (ctx: Pick<Ctx, 'importLeaseMs'>): number => ctx.importLeaseMs ?? DEFAULT_IMPORT_LEASE_MS;

/** Header text reduced to letters and digits, so "LinkedIn URL", "linkedin_url" and "LinkedInURL" meet. */
const squash = (header: string): string => header.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The usual export headers beyond the field names themselves. */
const ALIASES: Record<string, ImportField> = {
  linkedin: 'networkUrl',
  linkedinurl: 'networkUrl',
  linkedinprofile: 'networkUrl',
  linkedinprofileurl: 'networkUrl',
  profileurl: 'networkUrl',
  url: 'networkUrl',
  company: 'companyName',
  title: 'jobTitle',
  name: 'fullName',
};
const BY_SQUASHED: ReadonlyMap<string, ImportField> = new Map([...IMPORT_FIELDS.map((f) => [squash(f), f] as const), ...Object.entries(ALIASES)]);

export interface ColumnMapping {
  header: string;
  /** The field the column fills, or null when it is ignored. */
  field: ImportField | null;
}

/**
 * `--map "Header=field,Other=field"` as pairs. The header side is matched like automatic
 * mapping (case, spaces and punctuation ignored); the field must be an import field.
 */
export function parseMapOption(raw: string): Record<string, ImportField> {
  const out: Record<string, ImportField> = {};
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.lastIndexOf('=');
    const header = eq > 0 ? part.slice(0, eq).trim() : '';
    const field = eq > 0 ? part.slice(eq + 1).trim() : '';
    if (header === '' || field === '') throw validationError(`map: "${part.trim()}" must be Header=field.`, ['map']);
    const known = IMPORT_FIELDS.find((f) => f.toLowerCase() === field.toLowerCase());
    if (!known) throw validationError(`map: "${field}" is not a lead field (${IMPORT_FIELDS.join(', ')}).`, ['map']);
    out[header] = known;
  }
  return out;
}

/**
 * Maps each header to a field: `map` first, then names and usual headers. A field `map` names is
 * filled by the column it names, wherever that column stands, and no column maps to it by its
 * name (`--map "LinkedIn=networkUrl"` beats an earlier "URL" column, which is then ignored);
 * otherwise a field is filled by its first column only.
 */
export function mapColumns(headers: readonly string[], map: Readonly<Record<string, ImportField>> = {}): ColumnMapping[] {
  const overrides = new Map(Object.entries(map).map(([h, f]) => [squash(h), f]));
  for (const [header] of Object.entries(map)) {
    if (!headers.some((h) => squash(h) === squash(header))) {
      throw validationError(`map: the file has no column "${header}" (its columns: ${headers.join(', ')}).`, ['map']);
    }
  }
  const taken = new Set<ImportField>();
  // The explicit mapping claims its fields first, each by the first column it names.
  const claimed = headers.map((header) => {
    const field = overrides.get(squash(header));
    if (field === undefined || taken.has(field)) return null;
    taken.add(field);
    return field;
  });
  return headers.map((header, i) => {
    if (claimed[i] != null) return { header, field: claimed[i] };
    if (overrides.has(squash(header))) return { header, field: null };
    const field = BY_SQUASHED.get(squash(header)) ?? null;
    if (field === null || taken.has(field)) return { header, field: null };
    taken.add(field);
    return { header, field };
  });
}

/** The delimiter of a header line: the most frequent of comma, semicolon and tab outside quotes. */
export function detectDelimiter(headerLine: string): Delimiter {
  const counts: Record<Delimiter, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === ',' || ch === ';' || ch === '\t')) counts[ch]++;
  }
  const best = (Object.keys(counts) as Delimiter[]).sort((a, b) => counts[b] - counts[a])[0] as Delimiter;
  return counts[best] > 0 ? best : ',';
}

export type ImportSource = string | Buffer | Readable | AsyncIterable<Buffer | string>;

export type ImportSummaryShape = { total: number } & Record<AddItemStatus, number>;

/** A row that was not created, named by its line in the file (the header is line 1). */
export interface RowReport {
  line: number;
  status: Exclude<AddItemStatus, 'created'>;
  /** The lead field at fault, for a `validation_error`. */
  field?: ImportField;
  message: string;
  /** The row's values as in the file, for the CSV of rejected rows. */
  cells: string[];
}

/** A malformed line (bad quoting) ends the import there: rows before it went in. */
export interface ImportStop {
  line: number;
  message: string;
}

export interface ImportProgress {
  /** Rows added or judged so far. */
  rowsDone: number;
  summary: ImportSummaryShape;
  creditsCharged: number;
  /** The rows of the chunk just added that were not created. */
  rows: RowReport[];
}

export interface ImportResult {
  summary: ImportSummaryShape;
  creditsCharged: number;
  unmappedColumns: string[];
  delimiter: Delimiter;
  mapping: ColumnMapping[];
  header: string[];
  /** Every row that was not created, in file order. */
  rows: RowReport[];
  /** Set when a malformed line stopped the import. */
  stoppedAt: ImportStop | null;
}

export interface ImportOptions {
  campaignId: string;
  source: ImportSource;
  map?: Readonly<Record<string, ImportField>>;
  /** Records a chunk's progress, inside the chunk's own transaction (so it must not do I/O). */
  onProgress?: (p: ImportProgress) => void;
  /** Data rows an earlier run of the same file already added (a resumed import): read past, not added again. */
  skipRows?: number;
  /** Holds the campaign's importing mark; by default one of its own. */
  holder?: string;
  /** Test hook: called after each committed chunk (a crash simulated here must leave committed chunks). */
  afterChunk?: (chunkIndex: number) => void;
}

const emptySummary = (): ImportSummaryShape => ({ total: 0, ...Object.fromEntries(ADD_ITEM_STATUSES.map((s) => [s, 0])) }) as ImportSummaryShape;

/** Bytes of a file in memory handed to the parser at a time: a large file is read over several turns of the event loop. */
const PIECE_BYTES = 64 * 1024;

async function* chunksOf(source: ImportSource): AsyncGenerator<Buffer> {
  if (typeof source === 'string' || Buffer.isBuffer(source)) {
    const all = typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
    // csv-parse works on bytes, so a piece may end inside a value or a multi-byte character.
    for (let at = 0; at < all.length; at += PIECE_BYTES) yield all.subarray(at, at + PIECE_BYTES);
  } else for await (const chunk of source as AsyncIterable<Buffer | string>) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

/** Line breaks inside a record's values: a quoted value may span lines (CRLF counts once). */
function breaksIn(record: readonly string[]): number {
  let n = 0;
  for (const v of record) if (v.includes('\n') || v.includes('\r')) n += v.match(/\r\n|\r|\n/g)?.length ?? 0;
  return n;
}

const isBlank = (record: readonly string[]): boolean => record.every((v) => v.trim() === '');

export type FileItem = { kind: 'record'; line: number; record: string[] } | { kind: 'malformed'; stop: ImportStop };

/**
 * Opens a CSV source: reads up to the header line's first unquoted line end and detects the
 * delimiter from it, then hands the file's records over in batches (`recordBatches`).
 */
async function readRecords(source: ImportSource): Promise<{ delimiter: Delimiter; batches: AsyncGenerator<FileItem[]> }> {
  const it = chunksOf(source)[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  let done = false;
  while (!done && !/\r|\n/.test(head.toString('utf8'))) {
    const next = await it.next();
    if (next.done) done = true;
    else head = Buffer.concat([head, next.value]);
  }
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const delimiter = detectDelimiter(text.split(/\r?\n|\r/)[0] ?? '');
  return { delimiter, batches: recordBatches(it, head, done, delimiter) };
}

/**
 * The file's records, header first, each with the line it starts on, streamed through csv-parse
 * (RFC 4180 quoting, BOM removed, CRLF or LF), in batches: the records each piece of the file
 * completes, read from the parser with `read()` as soon as the piece is written. Reading them one
 * by one through the stream's async iterator cost a promise per row, and its `on_record` hook
 * builds an info object per row. Blank lines and rows of empty values are read past. Line
 * numbers are counted here: csv-parse's own count is off for CRLF inside quotes. A malformed
 * record ends the stream with a `malformed` item naming its first line.
 */
async function* recordBatches(it: AsyncIterator<Buffer>, head: Buffer, headIsAll: boolean, delimiter: Delimiter): AsyncGenerator<FileItem[]> {
  // A malformed record must end the import after every record before it, in order. An error
  // from the parser stream would drop the records it has buffered, so it skips the bad record
  // instead, and the records from there on are dropped here.
  const parser = parse({ delimiter, bom: true, relax_column_count: true, skip_records_with_error: true });
  let read = 0;
  let malformed: { before: number; code: string } | null = null;
  parser.on('skip', (err: { code?: string }) => {
    // Every record before the bad one has been read or is waiting in the parser's buffer.
    malformed ??= { before: read + parser.readableLength, code: err.code ?? 'CSV_INVALID' };
  });
  // Settles once the parser has taken the whole file; listening also catches a stream error early.
  const written = finished(parser, { readable: false });
  written.catch(() => {});
  let line = 1;
  const take = (): FileItem[] => {
    const items: FileItem[] = [];
    for (let record: string[] | null = parser.read(); record !== null; record = parser.read()) {
      const stop = malformed as { before: number } | null;
      if (stop !== null && read >= stop.before) continue;
      read++;
      const at = line;
      line += 1 + breaksIn(record);
      if (!isBlank(record)) items.push({ kind: 'record', line: at, record });
    }
    if (parser.errored) throw parser.errored;
    return items;
  };
  const write = async (piece: Buffer): Promise<FileItem[]> => {
    parser.write(piece);
    // The parser holds its drain back until its records are read, so they are read first; the
    // drain may then come at once, within that reading.
    const items = take();
    // Backpressure: wait for the parser to drain before reading more of the file.
    if (parser.writableNeedDrain) await once(parser, 'drain');
    return items;
  };
  try {
    let items = await write(head);
    let done = headIsAll;
    for (;;) {
      if (items.length) yield items;
      if (done || malformed !== null) break;
      // A file in memory is read without waiting on I/O: let the server answer in between.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const next = await it.next();
      done = next.done === true;
      items = next.done ? [] : await write(next.value);
    }
    parser.end();
    await written;
    items = take();
    if (items.length) yield items;
    const stop = malformed as { code: string } | null;
    if (stop !== null) yield [{ kind: 'malformed', stop: { line, message: malformedMessage(line, stop.code) } }];
  } finally {
    parser.destroy();
    await it.return?.();
  }
}

function malformedMessage(line: number, code: string): string {
  const what =
    code === 'CSV_QUOTE_NOT_CLOSED'
      ? 'a quote opened there is never closed'
      : code === 'CSV_INVALID_CLOSING_QUOTE'
        ? 'a quoted value is followed by more text before the next delimiter'
        : code === 'CSV_INVALID_OPENING_QUOTE'
          ? 'a quote appears inside a value that does not start with one'
          : 'its quoting is not valid CSV';
  return `Line ${line} is malformed: ${what}. Fix the quoting on that line (a value with a quote, delimiter or line break is wrapped in double quotes, and a quote inside is doubled), then import the file again; rows already imported are skipped free.`;
}

/** A data row: where it is in the file, and what of it goes to batch add. */
interface Row {
  line: number;
  cells: string[];
  lead: NewBatchLead;
  /** Set when the row is invalid before batch add sees it (a field over its length, words that cannot be stored). */
  invalid: { field: ImportField; message: string } | null;
}

const notUtf8 = (field: ImportField): string =>
  `${field} holds bytes that are not UTF-8 text: the file was saved in another encoding (Excel's plain "CSV" on Windows is Windows-1252). Save it as "CSV UTF-8" and import it again; rows already imported are skipped free.`;

/** A row as batch add takes it. A bad URL is left to batch add, which judges it as it judges any item. */
function toRow(line: number, cells: string[], mapping: readonly ColumnMapping[]): Row {
  const lead: Record<string, string> = {};
  let invalid: Row['invalid'] = null;
  for (let i = 0; i < mapping.length; i++) {
    const field = (mapping[i] as ColumnMapping).field;
    const v = cells[i]?.trim();
    if (field === null || !v) continue;
    lead[field] = v;
    // A byte that is not UTF-8 was read as U+FFFD: storing it would put "Jos� M�ller" in a message.
    if (invalid === null && v.includes('\uFFFD')) invalid = { field, message: notUtf8(field) };
    const words: string | null = invalid === null ? wordsProblem(v) : null;
    if (words) invalid = { field, message: `${field} ${words}` };
    if (invalid === null && field !== 'networkUrl' && v.length > LEAD_FIELD_MAX[field]) {
      invalid = { field, message: `${field} is ${v.length} characters; at most ${LEAD_FIELD_MAX[field]} are allowed.` };
    }
  }
  return { line, cells, lead: lead as NewBatchLead, invalid };
}

const ROW_MESSAGES: Record<Exclude<AddItemStatus, 'created' | 'validation_error'>, string> = {
  duplicate: 'Already in this campaign (or earlier in this file): not added again, and not charged.',
  excluded: 'On the workspace exclusion list: stored as excluded and never contacted, not charged.',
  insufficient_credits: `Not added: no credit was left for it. ${GRANT_HINT}, then import the file again; rows already in are skipped free.`,
  failed: 'Not added: a temporary failure stopped the chunk this row was in. Import the file again; rows already in are skipped free.',
};

/** What a chunk came to: its rows per status, the credits charged, and the rows not created. */
interface ChunkOutcome {
  counts: ImportSummaryShape;
  charged: number;
  rows: RowReport[];
}

/** Two summaries added up, status by status. */
export const addSummaries = (a: ImportSummaryShape, b: ImportSummaryShape): ImportSummaryShape =>
  Object.fromEntries(Object.keys(a).map((k) => [k, a[k as keyof ImportSummaryShape] + b[k as keyof ImportSummaryShape]])) as ImportSummaryShape;

/**
 * Judges each row of a chunk: a row invalid before batch add is a `validation_error`, the others
 * take batch add's answers to the valid rows, in order. Reads nothing, so it may judge the same
 * answers twice.
 */
function judgeChunk(chunk: readonly Row[], valid: readonly Row[], answers: readonly BatchAnswer[]): ChunkOutcome {
  const statuses = new Map<Row, AddItemStatus>();
  answers.forEach((a, i) => {
    statuses.set(valid[i] as Row, a.status);
  });
  const counts = emptySummary();
  const rows: RowReport[] = [];
  for (const row of chunk) {
    const status = statuses.get(row) ?? 'validation_error';
    counts[status]++;
    if (status === 'created') continue;
    if (status === 'validation_error') {
      const why = row.invalid ?? { field: 'networkUrl' as const, message: profileUrlProblem('networkUrl', row.lead.networkUrl) };
      rows.push({ line: row.line, status, field: why.field, message: why.message, cells: row.cells });
    } else {
      rows.push({ line: row.line, status, message: ROW_MESSAGES[status], cells: row.cells });
    }
  }
  counts.total = chunk.length;
  return { counts, charged: answers.reduce((sum, a) => sum + a.creditsCharged, 0), rows };
}

type BatchAnswer = AddLeadsBatchResult['results'][number];

/**
 * Adds one chunk through batch add and judges each row. `alongside` gets the chunk's outcome
 * inside batch add's transaction (writeBatch), so what it writes commits with the chunk; the
 * chunk is not wrapped in a transaction of the caller's, which would make it a savepoint.
 */
function addChunk(ctx: Ctx, campaignId: string, chunk: readonly Row[], alongside?: (outcome: ChunkOutcome) => void): ChunkOutcome {
  const valid = chunk.filter((r) => r.invalid === null);
  if (valid.length === 0) {
    const outcome = judgeChunk(chunk, valid, []);
    if (alongside) transaction(ctx.db, () => alongside(outcome));
    return outcome;
  }
  const result = addLeadsBatch(
    ctx,
    campaignId,
    valid.map((r) => r.lead),
    undefined,
    alongside && ((answers) => alongside(judgeChunk(chunk, valid, answers))),
  );
  return judgeChunk(chunk, valid, result.results);
}

/** Reads the header and maps it; no column for networkUrl is an error before anything is written. */
function mappingFor(header: readonly string[], map: ImportOptions['map']): ColumnMapping[] {
  const headers = header.map((h) => h.trim());
  const mapping = mapColumns(headers, map);
  if (!mapping.some((m) => m.field === 'networkUrl')) {
    throw validationError(
      `file: no column maps to networkUrl (columns: ${headers.join(', ') || 'none'}). Name it "LinkedIn URL" or "Profile URL", or map one with --map "Column=networkUrl".`,
      ['file'],
    );
  }
  return mapping;
}

/** The open file: its delimiter and mapped header, and the batches of items after the header. */
export async function openFile(source: ImportSource, map: ImportOptions['map']) {
  const { delimiter, batches } = await readRecords(source);
  let first: FileItem[] = [];
  while (first.length === 0) {
    const next = await batches.next();
    if (next.done) throw validationError('file: the file is empty; it needs a header row and at least one row.', ['file']);
    first = next.value;
  }
  const item = first[0] as FileItem;
  if (item.kind === 'malformed') throw validationError(`file: the header row is not valid CSV. ${item.stop.message}`, ['file']);
  const header = item.record.map((h) => h.trim());
  return { delimiter, header, mapping: mappingFor(header, map), batches: afterHeader(first.slice(1), batches) };
}

async function* afterHeader(rest: FileItem[], batches: AsyncGenerator<FileItem[]>): AsyncGenerator<FileItem[]> {
  if (rest.length) yield rest;
  yield* batches;
}

/**
 * Refuses an import the campaign cannot take: a campaign that never sends again, one a
 * Lookalike job is filling, or one another import is adding to now.
 */
export function checkImportable(ctx: Ctx, campaignId: string, holder?: string): void {
  const row = requireCampaignRow(ctx, campaignId);
  if (isFinished(row.status)) {
    throw new ApiError('conflict', `${neverRestarted(campaignId, row.status)}, so imported leads would never be contacted. Import into a new campaign.`);
  }
  if (hasPendingJob(ctx, campaignId)) {
    throw new ApiError('conflict', `Lookalike is still adding leads to campaign ${campaignId}. Import once it has finished (poll get_campaign).`);
  }
  const current = importingHolder(row, ctx.clock.now());
  if (current !== null && current !== holder) throw importRunning(campaignId);
}

export const importRunning = (campaignId: string) =>
  new ApiError(
    'conflict',
    `Another import is adding leads to campaign ${campaignId} now. Wait for it to finish (an importer that died releases the campaign within a minute), then import; rows already in are skipped free.`,
  );

/** A fresh holder id for one run of an import. */
export const newImportHolder = (prefix = 'import'): string => `${prefix}/${randomUUID()}`;

/**
 * Imports a CSV into a campaign. The campaign is `importing` from the first row to the end,
 * as a lease this run renews as chunks go in (so pause works again soon after an importer
 * dies). Network I/O never happens here; each chunk is one synchronous transaction between
 * reads of the file. A malformed line stops the import: what went in before it stays, and the
 * result names the line.
 */
export async function importLeads(ctx: Ctx, opts: ImportOptions): Promise<ImportResult> {
  requireCampaignRow(ctx, opts.campaignId);
  const file = await openFile(opts.source, opts.map);
  const holder = opts.holder ?? newImportHolder();
  const ttlMs = importLeaseMs(ctx);
  transaction(ctx.db, () => {
    checkImportable(ctx, opts.campaignId, holder);
    if (!beginImporting(ctx, opts.campaignId, { holder, lease: { ttlMs } })) throw importRunning(opts.campaignId);
  });
  let renewedAt = ctx.clock.now();
  const renew = () => {
    const now = ctx.clock.now();
    if (now - renewedAt < ttlMs / 3) return;
    renewedAt = now;
    // Lost (this run stalled past its lease and another took over): take it back if it is free.
    if (!renewImporting(ctx, opts.campaignId, holder, ttlMs)) beginImporting(ctx, opts.campaignId, { holder, lease: { ttlMs } });
  };

  let summary = emptySummary();
  const rows: RowReport[] = [];
  let creditsCharged = 0;
  let stoppedAt: ImportStop | null = null;
  let chunk: Row[] = [];
  let chunkIndex = 0;
  let skip = opts.skipRows ?? 0;
  const flush = () => {
    // The chunk and its progress commit together: a run killed at any point leaves a record
    // that counts exactly the rows it created, so a resumed import neither adds them again nor
    // calls them duplicates.
    const progress = opts.onProgress;
    const outcome = addChunk(
      ctx,
      opts.campaignId,
      chunk,
      progress &&
        ((o) =>
          progress({
            rowsDone: summary.total + o.counts.total,
            summary: addSummaries(summary, o.counts),
            creditsCharged: creditsCharged + o.charged,
            rows: o.rows,
          })),
    );
    summary = addSummaries(summary, outcome.counts);
    creditsCharged += outcome.charged;
    rows.push(...outcome.rows);
    opts.afterChunk?.(chunkIndex++);
    chunk = [];
    renew();
  };
  try {
    reading: for await (const batch of file.batches) {
      for (const item of batch) {
        if (item.kind === 'malformed') {
          stoppedAt = item.stop;
          break reading;
        }
        if (skip > 0) {
          skip--;
          continue;
        }
        chunk.push(toRow(item.line, item.record, file.mapping));
        if (chunk.length === CHUNK_SIZE) {
          flush();
          // A batch of a file already in memory holds hundreds of rows: let the server it runs in answer between chunks.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    if (chunk.length) flush();
  } finally {
    endImporting(ctx, opts.campaignId, holder);
  }
  return { ...described(file), summary, creditsCharged, rows, stoppedAt };
}

const described = (file: { delimiter: Delimiter; header: string[]; mapping: ColumnMapping[] }) => ({
  delimiter: file.delimiter,
  header: file.header,
  mapping: file.mapping,
  unmappedColumns: file.mapping.filter((m) => m.field === null).map((m) => m.header),
});

export interface ImportPreview extends ImportResult {
  /** Credits a real run would charge with unlimited credits: created leads, at 1 each. */
  creditsNeeded: number;
  /** Normal credits (plan and top-up) left now. */
  creditsAvailable: number;
  /** Rows a real run now would leave `insufficient_credits`. */
  shortOfCredits: number;
}

/** Runs every chunk of `rows` through batch add in one transaction that is always rolled back. */
function dryRun(ctx: Ctx, campaignId: string, rows: readonly Row[], credits: number | null, onProgress?: ImportOptions['onProgress']) {
  let summary = emptySummary();
  const rejected: RowReport[] = [];
  let charged = 0;
  rehearse(ctx.db, () => {
    if (credits !== null) setRehearsalCredits(ctx.db, credits);
    for (let i = 0; i < rows.length; i += CHUNK_SIZE) {
      const outcome = addChunk(ctx, campaignId, rows.slice(i, i + CHUNK_SIZE));
      summary = addSummaries(summary, outcome.counts);
      charged += outcome.charged;
      rejected.push(...outcome.rows);
      onProgress?.({ rowsDone: summary.total, summary, creditsCharged: charged, rows: outcome.rows });
    }
  });
  return { summary, rows: rejected, charged };
}

/** More credits than any file can use: the preview's "unlimited". */
const UNLIMITED = 1_000_000_000;

/**
 * `--dry-run` and the dashboard's preview: the summary a real run would give with unlimited
 * credits, the credits it needs and has, and how many rows a real run now would leave
 * `insufficient_credits`. It reads the whole file, then runs the real verb on every chunk
 * inside a transaction that is always rolled back, so nothing is written or charged and
 * duplicates within the file count exactly as they would. When credits fall short, a second
 * rolled-back run with the real balance counts the rows left without (batch add stops
 * charging at the first row it cannot pay, so that count is not a subtraction).
 */
export async function previewImport(ctx: Ctx, opts: Omit<ImportOptions, 'afterChunk' | 'skipRows' | 'holder'>): Promise<ImportPreview> {
  requireCampaignRow(ctx, opts.campaignId);
  const file = await openFile(opts.source, opts.map);
  const rows: Row[] = [];
  let stoppedAt: ImportStop | null = null;
  reading: for await (const batch of file.batches) {
    for (const item of batch) {
      if (item.kind === 'malformed') {
        stoppedAt = item.stop;
        break reading;
      }
      rows.push(toRow(item.line, item.record, file.mapping));
    }
  }
  const full = dryRun(ctx, opts.campaignId, rows, UNLIMITED, opts.onProgress);
  const creditsAvailable = leadCreditsAvailable(ctx);
  const shortOfCredits = full.charged > creditsAvailable ? dryRun(ctx, opts.campaignId, rows, creditsAvailable).summary.insufficient_credits : 0;
  return {
    ...described(file),
    summary: full.summary,
    rows: full.rows,
    stoppedAt,
    creditsCharged: 0,
    creditsNeeded: full.charged,
    creditsAvailable,
    shortOfCredits,
  };
}

const quote = (field: string): string => (/[",;\t\r\n]/.test(field) || field !== field.trim() ? `"${field.replace(/"/g, '""')}"` : field);

/**
 * The rows that were not created, as a CSV to fix and import again: the file's own columns
 * and delimiter, plus `line`, `status` and `reason` columns at the end.
 */
export function rejectedRowsCsv(header: readonly string[], delimiter: Delimiter, rows: readonly RowReport[]): string {
  const width = header.length;
  const lines = [[...header, 'line', 'status', 'reason']];
  for (const r of rows) {
    const cells = Array.from({ length: width }, (_, i) => defuseFormula(r.cells[i] ?? ''));
    lines.push([...cells, String(r.line), r.status, r.message]);
  }
  return `${lines.map((l) => l.map(quote).join(delimiter)).join('\r\n')}\r\n`;
}
