import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authenticateKey, insertApiKey, revokeApiKey } from '../../src/core/auth/keys.js';
import { ApiError } from '../../src/core/errors.js';
import { getWorkspace } from '../../src/core/workspace/get.js';
import { openDatabase } from '../../src/db/connection.js';
import { readCache } from '../../src/db/read-cache.js';
import { workspace } from '../../src/db/schema.js';
import { fixture, testCtx, TEST_KEY } from '../helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The microtask boundary after which another connection's commits are looked for again. */
const nextStretch = () => new Promise<void>((resolve) => setImmediate(resolve));

const refused = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.code : String(err);
  }
};

describe('read cache of per-request rows', () => {
  it('serves a cached row until this connection writes anything', () => {
    const ctx = testCtx();
    let loads = 0;
    const load = () => ({ n: ++loads });
    expect(readCache(ctx.db).get('x', load)).toEqual({ n: 1 });
    expect(readCache(ctx.db).get('x', load)).toEqual({ n: 1 });
    ctx.db.update(workspace).set({ name: 'Renamed' }).run();
    expect(readCache(ctx.db).get('x', load)).toEqual({ n: 2 });
    expect(getWorkspace(ctx)?.name).toBe('Renamed');
  });

  it('keeps nothing that is missing, and nothing read inside a transaction', () => {
    const ctx = testCtx();
    let loads = 0;
    expect(readCache(ctx.db).get('missing', () => (loads++, undefined))).toBeUndefined();
    expect(readCache(ctx.db).get('missing', () => (loads++, undefined))).toBeUndefined();
    expect(loads).toBe(2);
    ctx.db.$client.transaction(() => {
      expect(readCache(ctx.db).get('inside', () => ++loads)).toBe(3);
      expect(readCache(ctx.db).get('inside', () => ++loads)).toBe(4);
    })();
  });

  it('a key revoked or a plan changed by another connection takes effect on the next request', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'read-cache-'));
    dirs.push(dir);
    const file = join(dir, 'a.db');
    const server = { ...testCtx({ workspace: null }), db: openDatabase(file) };
    const seeded = testCtx();
    // Copy the seeded workspace and key into the file through the server's own connection.
    server.db.insert(workspace).values(getWorkspace(seeded)!).run();
    const { id } = insertApiKey(server, TEST_KEY, 'ci');
    expect(authenticateKey(server, TEST_KEY).keyId).toBe(id);
    expect(getWorkspace(server)?.plan).toBe(fixture().workspace?.plan ?? 'paid');

    const cli = { ...server, db: openDatabase(file) };
    revokeApiKey(cli, id);
    cli.db.update(workspace).set({ plan: 'free' }).run();
    cli.db.$client.close();

    await nextStretch();
    expect(refused(() => authenticateKey(server, TEST_KEY))).toBe('unauthorized');
    expect(getWorkspace(server)?.plan).toBe('free');
    server.db.$client.close();
  });
});
