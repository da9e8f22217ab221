import { SqliteUnipileStore } from '../../../src/core/network/unipile-store.js';
import { eq } from 'drizzle-orm';
import { Agent } from 'undici';
import { afterEach, beforeEach, expect } from 'vitest';
import { accounts } from '../../../src/db/schema.js';
import { silentLogger } from '../../../src/log.js';
import type { AccountRef } from '../../../src/core/network/provider.js';
import { createUnipileProvider, type UnipileDeps } from '../../../src/network/unipile/index.js';
import { testCtx } from '../../helpers.js';
import { startContractServer } from './contract-server.js';

export const SECRET = 'inbound-secret-0123456789abcdef';
export const ada: AccountRef = { id: 'acc_ada', hasSalesNavigator: false };
export const nav: AccountRef = { id: 'acc_nav', hasSalesNavigator: true };

/** The fixture accounts linked to Unipile accounts on a fresh contract server. */
export const LINKS = { acc_ada: 'UNI_ADA', acc_nav: 'UNI_NAV', acc_off: 'UNI_OFF' } as const;

export async function setup(deps: Partial<UnipileDeps> = {}) {
  const server = await startContractServer();
  const ctx = testCtx();
  for (const [id, providerAccountId] of Object.entries(LINKS)) ctx.db.update(accounts).set({ providerAccountId }).where(eq(accounts.id, id)).run();
  server.addAccount('UNI_ADA', { name: 'Ada' });
  server.addAccount('UNI_NAV', { salesNav: true, name: 'Navigator' });
  server.addAccount('UNI_OFF', { status: 'CREDENTIALS', name: 'Offline' });
  const sleeps: number[] = [];
  const dispatcher = new Agent({ keepAliveTimeout: 10, keepAliveMaxTimeout: 10 });
  const provider = createUnipileProvider(
    { dsn: server.url, apiKey: server.apiKey, inboundSecret: SECRET },
    {
      store: new SqliteUnipileStore(ctx.db, ctx.simClock),
      clock: ctx.clock,
      log: silentLogger(),
      dispatcher,
      timeoutMs: 2_000,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...deps,
    },
  );
  return {
    server,
    ctx,
    provider,
    sleeps,
    close: async () => {
      await provider.idle();
      await dispatcher.close();
      await server.close();
      ctx.db.$client.close();
    },
  };
}

export type Setup = Awaited<ReturnType<typeof setup>>;

export const profileUrl = (slug: string): string => `https://www.linkedin.com/in/${slug}`;

/**
 * A fresh contract server and provider for each test of the calling file, checked for contract
 * violations after each. The returned object always forwards to the current test's setup.
 */
export function useSetup(deps: Partial<UnipileDeps> = {}): Setup {
  let current: Setup | undefined;
  beforeEach(async () => {
    current = await setup(deps);
  });
  afterEach(async () => {
    expect(current?.server.violations).toEqual([]);
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as Setup, {
    get: (_target, key) => {
      if (current === undefined) throw new Error('useSetup: only available inside a test');
      return Reflect.get(current, key);
    },
  });
}
