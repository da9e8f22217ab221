import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { creditBalance } from '../../db/schema.js';
import { ADD_ITEM_STATUSES, addLeadsBatch, type AddItemStatus, type NewBatchLead } from '../leads/add.js';
import { LEAD_FIELD_MAX } from '../leads/fields.js';
import { beginImport, endImport } from '../campaigns/importing.js';
import { requireCampaignRow } from '../campaigns/campaign.js';
import type { Ctx } from '../context.js';
import { validationError } from '../errors.js';

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

/** Maps each header to a field: `map` first, then names and usual headers. A field is filled by its first column only. */
export function mapColumns(headers: readonly string[], map: Readonly<Record<string, ImportField>> = {}): ColumnMapping[] {
  const overrides = new Map(Object.entries(map).map(([h, f]) => [squash(h), f]));
  for (const [header] of Object.entries(map)) {
    if (!headers.some((h) => squash(h) === squash(header))) {
      throw validationError(`map: the file has no column "${header}" (its columns: ${headers.join(', ')}).`, ['map']);
    }
  }
  const taken = new Set<ImportField>();
  return headers.map((header) => {
    const field = overrides.get(squash(header)) ?? BY_SQUASHED.get(squash(header)) ?? null;
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

export interface ImportProgress {
  /** Rows added or judged so far. */
  rowsDone: number;
  summary: ImportSummaryShape;
  creditsCharged: number;
}

export interface ImportResult {
  summary: ImportSummaryShape;
  creditsCharged: number;
  unmappedColumns: string[];
  delimiter: Delimiter;
  mapping: ColumnMapping[];
}

export interface ImportOptions {
  campaignId: string;
  source: ImportSource;
  map?: Readonly<Record<string, ImportField>>;
  onProgress?: (p: ImportProgress) => void;
  /** Test hook: called after each committed chunk (a crash simulated here must leave committed chunks). */
  afterChunk?: (chunkIndex: number) => void;
}

const emptySummary = (): ImportSummaryShape => ({ total: 0, ...Object.fromEntries(ADD_ITEM_STATUSES.map((s) => [s, 0])) }) as ImportSummaryShape;

async function* chunksOf(source: ImportSource): AsyncGenerator<Buffer> {
  if (typeof source === 'string') yield Buffer.from(source, 'utf8');
  else if (Buffer.isBuffer(source)) yield source;
  else for await (const chunk of source as AsyncIterable<Buffer | string>) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

/**
 * The file's records, header first, streamed through csv-parse (RFC 4180 quoting, BOM
 * removed, CRLF or LF). The delimiter is read from the header line, which is buffered until
 * its first unquoted line end.
 */
async function* records(source: ImportSource): AsyncGenerator<{ delimiter: Delimiter } | string[]> {
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
  yield { delimiter };
  const parser = parse({ delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_empty_values: true });
  const feed = (async () => {
    try {
      parser.write(head);
      while (!done) {
        const next = await it.next();
        if (next.done) break;
        // Backpressure: wait for the parser to drain before reading more of the file.
        if (!parser.write(next.value)) await new Promise((resolve) => parser.once('drain', resolve));
      }
      parser.end();
    } catch (err) {
      parser.destroy(err as Error);
    }
  })();
  for await (const record of parser as AsyncIterable<string[]>) yield record;
  await feed;
}

interface Prepared {
  rows: { index: number; lead: NewBatchLead | null; rawUrl: string | null }[];
}

/**
 * A row as batch add takes it, or null when a field is over its length limit (that row's
 * validation_error). A bad URL is left to batch add, which judges it as it judges any item.
 */
function rowToLead(record: readonly string[], mapping: readonly ColumnMapping[]): { lead: NewBatchLead | null; rawUrl: string | null } {
  const lead: Record<string, string> = {};
  let valid = true;
  for (let i = 0; i < mapping.length; i++) {
    const field = (mapping[i] as ColumnMapping).field;
    const v = record[i]?.trim();
    if (field === null || !v) continue;
    lead[field] = v;
    if (field !== 'networkUrl' && v.length > LEAD_FIELD_MAX[field]) valid = false;
  }
  return { lead: valid ? (lead as NewBatchLead) : null, rawUrl: lead.networkUrl ?? null };
}

function addChunk(ctx: Ctx, campaignId: string, chunk: Prepared['rows'], summary: ImportSummaryShape): number {
  const valid = chunk.filter((r): r is Prepared['rows'][number] & { lead: NewBatchLead } => r.lead !== null);
  let charged = 0;
  const statuses: AddItemStatus[] = chunk.map(() => 'validation_error');
  if (valid.length) {
    const result = addLeadsBatch(
      ctx,
      campaignId,
      valid.map((r) => r.lead),
    );
    const positions = chunk.flatMap((r, i) => (r.lead !== null ? [i] : []));
    result.results.forEach((r, i) => {
      statuses[positions[i] as number] = r.status;
    });
    charged = result.creditsCharged;
  }
  for (const s of statuses) summary[s]++;
  summary.total += chunk.length;
  return charged;
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

/**
 * Imports a CSV into a campaign. The campaign is `importing` from the first row to the end
 * (also when the import fails). Network I/O never happens here; each chunk is one
 * synchronous transaction between reads of the file.
 */
export async function importLeads(ctx: Ctx, opts: ImportOptions): Promise<ImportResult> {
  requireCampaignRow(ctx, opts.campaignId);
  const iter = records(opts.source)[Symbol.asyncIterator]();
  const first = await iter.next();
  const delimiter = (first.value as { delimiter: Delimiter }).delimiter;
  const headerRec = await iter.next();
  if (headerRec.done) throw validationError('file: the file is empty; it needs a header row and at least one row.', ['file']);
  const mapping = mappingFor(headerRec.value as string[], opts.map);
  const summary = emptySummary();
  let creditsCharged = 0;
  let chunk: Prepared['rows'] = [];
  let chunkIndex = 0;
  const flush = () => {
    creditsCharged += addChunk(ctx, opts.campaignId, chunk, summary);
    opts.afterChunk?.(chunkIndex++);
    chunk = [];
    opts.onProgress?.({ rowsDone: summary.total, summary: { ...summary }, creditsCharged });
  };
  beginImport(ctx, opts.campaignId);
  try {
    for (let next = await iter.next(); !next.done; next = await iter.next()) {
      const record = next.value as string[];
      chunk.push({ index: summary.total + chunk.length, ...rowToLead(record, mapping) });
      if (chunk.length === CHUNK_SIZE) flush();
    }
    if (chunk.length) flush();
  } finally {
    endImport(ctx, opts.campaignId);
  }
  return { summary, creditsCharged, unmappedColumns: mapping.filter((m) => m.field === null).map((m) => m.header), delimiter, mapping };
}

export interface ImportPreview extends ImportResult {
  /** Credits a real run would charge now: created leads, at 1 each. */
  creditsNeeded: number;
}

class DryRunRollback extends Error {}

/**
 * `--dry-run` and the dashboard's preview: the summary a real run would give with unlimited
 * credits, plus creditsNeeded. It reads the whole file, then runs the real verb on every
 * chunk inside one transaction that is always rolled back, so nothing is written or charged
 * and duplicates within the file count exactly as they would.
 */
export async function previewImport(ctx: Ctx, opts: Omit<ImportOptions, 'afterChunk'>): Promise<ImportPreview> {
  requireCampaignRow(ctx, opts.campaignId);
  const iter = records(opts.source)[Symbol.asyncIterator]();
  const delimiter = ((await iter.next()).value as { delimiter: Delimiter }).delimiter;
  const headerRec = await iter.next();
  if (headerRec.done) throw validationError('file: the file is empty; it needs a header row and at least one row.', ['file']);
  const mapping = mappingFor(headerRec.value as string[], opts.map);
  const rows: Prepared['rows'] = [];
  for (let next = await iter.next(); !next.done; next = await iter.next()) rows.push({ index: rows.length, ...rowToLead(next.value as string[], mapping) });
  const summary = emptySummary();
  let creditsCharged = 0;
  try {
    ctx.db.$client
      .transaction(() => {
        // Unlimited credits for the preview; the rollback below takes them back with everything else.
        ctx.db.update(creditBalance).set({ credits: 1_000_000_000 }).run();
        for (let i = 0; i < rows.length; i += CHUNK_SIZE) {
          creditsCharged += addChunk(ctx, opts.campaignId, rows.slice(i, i + CHUNK_SIZE), summary);
          opts.onProgress?.({ rowsDone: summary.total, summary: { ...summary }, creditsCharged });
        }
        throw new DryRunRollback();
      })
      .immediate();
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
  }
  return {
    summary,
    creditsCharged: 0,
    creditsNeeded: creditsCharged,
    unmappedColumns: mapping.filter((m) => m.field === null).map((m) => m.header),
    delimiter,
    mapping,
  };
}
