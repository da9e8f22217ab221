/**
 * Writes fixture leads into a database for benchmarks (`npm run fixture`):
 *
 *   node dist/cli/fixture.js [--db PATH] [--campaign ID] [--leads N]
 *
 * Creates an empty paid workspace and the campaign when they are missing, then appends N
 * leads (default 1,000,000) to the campaign. Create a key afterwards with `outreach keys create`.
 */
import { parseArgs } from 'node:util';
import { DEFAULTS } from '../config.js';
import { closeContext } from '../core/context.js';
import { PATH_ID } from '../core/ids.js';
import { fillFixtureCampaign } from '../core/seed/fixture.js';
import { ensureWorkspace } from '../core/workspace/create.js';
import { silentLogger } from '../log.js';
import { createContext } from '../server.js';

function fail(message: string): never {
  process.stderr.write(`fixture: ${message}\n`);
  process.exit(2);
}

function main(): void {
  let values;
  try {
    ({ values } = parseArgs({
      options: { db: { type: 'string' }, campaign: { type: 'string' }, leads: { type: 'string' } },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  const dbPath = values.db ?? process.env.OUTREACH_DB ?? DEFAULTS.dbPath;
  const campaignId = values.campaign ?? 'cmp_fixture';
  const count = Number(values.leads ?? 1_000_000);
  if (!PATH_ID.test(campaignId)) fail(`--campaign: "${campaignId}" must match [A-Za-z0-9_-]{1,64}`);
  if (!Number.isSafeInteger(count) || count < 1) fail(`--leads: "${values.leads}" must be a positive integer`);

  const ctx = createContext({ dbPath, env: 'development', simSpeed: 1 }, silentLogger());
  ensureWorkspace(ctx);
  const startedAt = performance.now();
  const { written, totalLeads } = fillFixtureCampaign(ctx, campaignId, count);
  const ms = Math.round(performance.now() - startedAt);
  closeContext(ctx);
  process.stdout.write(`${JSON.stringify({ db: dbPath, campaignId, written, totalLeads, ms })}\n`);
}

main();
