import { z } from 'zod';
import { IsoTimestamp } from '../../core/clock.js';
import { addExclusions, exclusionUrlsFromText, removeExclusions } from '../../core/exclusions/exclusions.js';
import { validationError } from '../../core/errors.js';
import { listExclusionPage } from '../../core/exclusions/page.js';
import { Cursor, Limit } from '../../core/pagination.js';
import { defineOperatorTool } from '../define.js';

const Urls = z.array(z.string()).min(1).max(1000).describe("Profile URLs, normalised as leads' are; 1..1000.");

export const listExclusionsTool = defineOperatorTool({
  name: 'list_exclusions',
  title: 'List exclusions',
  description: 'The workspace exclusion list, newest first: profile URLs never contacted.',
  input: z.strictObject({ limit: Limit, cursor: Cursor.optional() }),
  output: z.object({ exclusions: z.array(z.object({ networkUrl: z.string(), createdAt: IsoTimestamp })), nextCursor: z.string().nullable() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input, caller) => listExclusionPage(ctx, caller.workspace.cursorSecret, input),
});

export const addExclusionsTool = defineOperatorTool({
  name: 'add_exclusions',
  title: 'Add exclusions',
  description: 'Puts profile URLs on the exclusion list and excludes their leads in every campaign.',
  input: z.strictObject({ urls: Urls }),
  output: z.object({ added: z.array(z.string()), alreadyExcluded: z.array(z.string()), leadsExcluded: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => addExclusions(ctx, input.urls),
});

export const removeExclusionsTool = defineOperatorTool({
  name: 'remove_exclusions',
  title: 'Remove exclusions',
  description: 'Takes profile URLs off the exclusion list; leads already excluded stay excluded.',
  input: z.strictObject({ urls: Urls }),
  output: z.object({ removed: z.array(z.string()), notExcluded: z.array(z.string()) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => removeExclusions(ctx, input.urls),
});

export const importExclusionsTool = defineOperatorTool({
  name: 'import_exclusions',
  title: 'Import exclusions',
  description:
    'Adds every profile URL of a file to the exclusion list: one URL a line, or a CSV with a profile URL column. All or nothing: one bad URL adds none.',
  input: z.strictObject({ file: z.string().min(1).describe('The file as UTF-8 text.') }),
  output: z.object({ added: z.array(z.string()), alreadyExcluded: z.array(z.string()), leadsExcluded: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx, input) => {
    const urls = exclusionUrlsFromText(input.file);
    if (urls.length === 0) throw validationError('file: it holds no profile URLs.', ['file']);
    return addExclusions(ctx, urls, 'file');
  },
});
