/**
 * The CSV import case on its own (`npm run bench:import`): quicker than the whole bench,
 * which also runs it. Prints the figures and whether the targets are met.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadApp, repoRoot } from './lib/app.js';
import { benchImport, IMPORT_TARGET_MS, IMPORT_VS_BATCH } from './lib/import.js';

const root = repoRoot();
const dir = mkdtempSync(join(os.tmpdir(), 'outreach-bench-import-'));
try {
  const r = await benchImport(await loadApp(root), root, dir);
  const ratio = r.inProcessMs / r.batchAddsMs;
  process.stdout.write(
    `${JSON.stringify(r)}\n` +
      `${r.cliMs < IMPORT_TARGET_MS ? 'met    ' : 'NOT MET'} outreach import of ${r.rows} rows under ${IMPORT_TARGET_MS / 1000} s: ${(r.cliMs / 1000).toFixed(2)} s\n` +
      `${ratio <= IMPORT_VS_BATCH ? 'met    ' : 'NOT MET'} import within ${IMPORT_VS_BATCH}× of 100 batch adds in-process: ${ratio.toFixed(2)}× (${r.inProcessMs.toFixed(0)} vs ${r.batchAddsMs.toFixed(0)} ms)\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
