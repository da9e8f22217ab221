import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { reviewWorkspace } from '../drafts/helpers.js';
import { TEST_KEY, testCtx } from '../helpers.js';

/**
 * A database file seeded with the review workspace (four leads) for `outreach mcp` children over
 * stdio, in a folder of its own for the describe block that calls this (made before, removed
 * after). `elsewhere` writes to it as another process would (the CLI, a second server).
 */
export function stdioWorkspace(prefix: string) {
  const BIN = new URL('../../bin/outreach.js', import.meta.url).pathname;
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = join(dir, 'o.db');
  const env = { ...(process.env as Record<string, string>), OUTREACH_API_KEY: TEST_KEY, OUTREACH_ENV: '' };
  beforeAll(() => {
    const file = join(dir, 'ws.json');
    writeFileSync(file, JSON.stringify(reviewWorkspace(4)));
    execFileSync(process.execPath, [BIN, 'seed', '--file', file, '--db', db]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const elsewhere = <T>(fn: (ctx: ReturnType<typeof testCtx>) => T): T => {
    const other = { ...testCtx({ workspace: null }), db: openDatabase(db) };
    try {
      return fn(other);
    } finally {
      other.db.$client.close();
    }
  };
  return { BIN, db, env, elsewhere };
}
