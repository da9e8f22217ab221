import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { excludedLeadCount } from '../leads/store.js';
import { excludeEverywhere } from '../leads/exclude.js';
import { normalizeProfileUrl, PROFILE_URL_HINT } from '../leads/url.js';
import { validationError } from '../errors.js';
import { parse as parseCsv } from 'csv-parse/sync';
import { detectDelimiter, mapColumns } from '../imports/csv.js';
import { deleteExclusionUrl, exclusionKnown, exclusionRows } from './store.js';

/**
 * The workspace exclusion list: profile URLs, normalised as leads' are, that are never
 * contacted. Adding a URL excludes every lead with it in every campaign (the same effect as
 * excluding one such lead), and later adds of it are stored excluded. The operator's verbs
 * (CLI now, the dashboard later); the API reaches the list only through lead exclusion.
 */

export interface Exclusion {
  networkUrl: string;
  createdAt: string;
}

export function listExclusions(ctx: Ctx): Exclusion[] {
  return exclusionRows(ctx).map((r) => ({ networkUrl: r.networkUrl, createdAt: new Date(r.createdAt).toISOString() }));
}

/** Each input normalised; any that is not a personal profile URL is a 400 naming it, and nothing is written. */
export function normalizeExclusionUrls(inputs: readonly string[], field = 'urls'): string[] {
  if (inputs.length === 0) throw validationError(`${field}: give at least one profile URL.`, [field]);
  return inputs.map((raw, i) => {
    const url = normalizeProfileUrl(raw);
    if (url === null) throw validationError(`${field}[${i}]: "${raw}" is not ${PROFILE_URL_HINT}.`, [`${field}[${i}]`]);
    return url;
  });
}

export interface AddExclusionsResult {
  /** URLs newly on the list. */
  added: string[];
  /** URLs that were on it already. */
  alreadyExcluded: string[];
  /** Leads newly excluded across all campaigns. */
  leadsExcluded: number;
}

/** `field` names the input in an error (`urls[3]`, or `file[3]` for the URLs read from a file). */
export function addExclusions(ctx: Ctx, inputs: readonly string[], field = 'urls'): AddExclusionsResult {
  const urls = [...new Set(normalizeExclusionUrls(inputs, field))];
  return transaction(ctx.db, () => {
    const result: AddExclusionsResult = { added: [], alreadyExcluded: [], leadsExcluded: 0 };
    const before = excludedCount(ctx);
    for (const url of urls) {
      (exclusionKnown(ctx, url) ? result.alreadyExcluded : result.added).push(url);
      excludeEverywhere(ctx, { id: '', networkUrl: url });
    }
    result.leadsExcluded = excludedCount(ctx) - before;
    return result;
  });
}

export interface RemoveExclusionsResult {
  removed: string[];
  notExcluded: string[];
}

/**
 * Takes URLs off the list, so later adds of them are contacted. Leads already excluded stay
 * excluded: each may have been excluded for its own reason (a tag), and update_lead with
 * `excluded: false` takes one back deliberately.
 */
export function removeExclusions(ctx: Ctx, inputs: readonly string[]): RemoveExclusionsResult {
  const urls = [...new Set(normalizeExclusionUrls(inputs))];
  return transaction(ctx.db, () => {
    const result: RemoveExclusionsResult = { removed: [], notExcluded: [] };
    for (const url of urls) {
      (deleteExclusionUrl(ctx, url) > 0 ? result.removed : result.notExcluded).push(url);
    }
    return result;
  });
}

const excludedCount = (ctx: Ctx): number => excludedLeadCount(ctx.db);

/**
 * The URLs of an exclusion file: one per line, or a CSV whose header has a profile URL
 * column (mapped as the lead import maps headers, parsed by csv-parse). Blank lines and `#`
 * comments of a plain list are skipped.
 */
export function exclusionUrlsFromText(text: string): string[] {
  const body = text.replace(/^\uFEFF/, '');
  const lines = body
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0) return [];
  if (normalizeProfileUrl(lines[0] as string) !== null) return lines;
  let records: string[][];
  try {
    records = parseCsv(body, { delimiter: detectDelimiter(lines[0] as string), bom: true, relax_column_count: true, skip_empty_lines: true }) as string[][];
  } catch (err) {
    // A malformed line (bad quoting) refuses the whole file, before anything is excluded.
    const line = (err as { lines?: number }).lines;
    throw validationError(
      `file: ${line !== undefined ? `line ${line} is` : 'the file is'} not valid CSV (${(err as Error).message.replace(/^[^:]*: /, '')}); nothing was excluded.`,
      ['file'],
    );
  }
  const [header = [], ...rows] = records;
  const col = mapColumns(header.map((h) => h.trim())).findIndex((m) => m.field === 'networkUrl');
  if (col < 0) throw validationError('file: the first line is neither a profile URL nor a header with a profile URL column (e.g. "LinkedIn URL").', ['file']);
  return rows.map((r) => (r[col] ?? '').trim()).filter((u) => u !== '');
}
