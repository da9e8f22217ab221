import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { findAccountView } from '../../../src/core/accounts/list.js';
import { connectAccount } from '../../../src/core/accounts/manage.js';
import { resolveSafety } from '../../../src/core/safety/rules.js';
import type { Ctx } from '../../../src/core/context.js';
import { accounts } from '../../../src/db/schema.js';
import { SqliteUnipileStore } from '../../../src/core/network/unipile-store.js';
import { createUnipileProvider, handleHostedNotify, HOSTED_AUTH_NOTIFY_PATH } from '../../../src/network/unipile/index.js';
import { silentLogger } from '../../../src/log.js';
import { SECRET, useSetup } from './helpers.js';

const DAY = 86_400_000;

/** connect_account in production, against the Unipile contract server's hosted auth link. */
describe('hosted sign-in (production connect_account)', () => {
  const s = useSetup();
  const production = (publicUrl?: string): Ctx => {
    const provider = createUnipileProvider(
      { dsn: s.server.url, apiKey: s.server.apiKey, inboundSecret: SECRET, publicUrl },
      { store: new SqliteUnipileStore(s.ctx.db, s.ctx.simClock), clock: s.ctx.clock, log: silentLogger(), timeoutMs: 2_000, sleep: async () => undefined },
    );
    return { ...s.ctx, env: 'production', network: provider };
  };

  it('asks Unipile for a link naming our account, and the account waits connecting', async () => {
    const ctx = production('https://outreach.example.com/');
    const r = await connectAccount(ctx, { name: 'Field sales', messageLimit: 60 });
    expect(r.connectUrl).toMatch(/^https:\/\/account\.unipile\.com\/hosted\//);
    // It will warm up once connected, and already shows the first day's limits beside the configured ones.
    expect(r.account).toMatchObject({
      name: 'Field sales',
      status: 'connecting',
      hasSalesNavigator: false,
      today: { connectionRequestLimit: 5, messageLimit: 10 },
      limits: { connectionRequestLimit: 25, messageLimit: 60 },
      warmUp: { day: 1, days: 14 },
    });
    const link = s.server.hostedLinks[0]!;
    expect(link).toMatchObject({
      type: 'create',
      providers: ['LINKEDIN'],
      name: r.account.id,
      notify_url: `https://outreach.example.com${HOSTED_AUTH_NOTIFY_PATH}`,
    });
    expect(link.api_url).toBe(new URL(s.server.url).origin);
  });

  it('the notify call links the account once Unipile confirms it; Sales Navigator comes from Unipile', async () => {
    const ctx = production('https://outreach.example.com');
    const { account } = await connectAccount(ctx, { name: 'Nav' });
    s.server.addAccount('UNI_NEW', { salesNav: true, name: 'New one' });
    const http = (ctx.network as unknown as { http: never }).http;
    const deps = { http, store: (ctx.network as unknown as { store: never }).store, clock: s.ctx.clock, log: silentLogger() };
    expect(await handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_NEW', name: account.id })).toBe('linked');
    const row = s.ctx.db.select().from(accounts).where(eq(accounts.id, account.id)).get()!;
    expect(row).toMatchObject({ status: 'connected', hasSalesNavigator: true, providerAccountId: 'UNI_NEW' });
    // A replay, or a report naming an account Unipile does not hold, changes nothing.
    expect(await handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_NEW', name: account.id })).toBe('ignored');
    await expect(handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_FORGED', name: 'acc_ada' })).rejects.toBeTruthy();
    expect(await handleHostedNotify(deps, { nothing: true })).toBe('invalid');
    s.server.violations.length = 0; // the forged id's 404 is the contract server answering, not our violation
  });

  it('starts the warm-up when the sign-in completes, never again on a replay, a reconnect or a sync', async () => {
    const ctx = production('https://outreach.example.com');
    const { account } = await connectAccount(ctx, { name: 'Late signer' });
    const deps = {
      http: (ctx.network as unknown as { http: never }).http,
      store: (ctx.network as unknown as { store: never }).store,
      clock: s.ctx.clock,
      log: silentLogger(),
    };
    const warmUpStartedAt = () => s.ctx.db.select().from(accounts).where(eq(accounts.id, account.id)).get()!.warmUpStartedAt;
    // The person signs in after UTC midnight: day 1 is the day the account became usable.
    s.ctx.clock.advance(DAY);
    const linkedAt = s.ctx.simClock.now();
    s.server.addAccount('UNI_LATE', { name: 'Late' });
    expect(await handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_LATE', name: account.id })).toBe('linked');
    expect(warmUpStartedAt()).toBe(linkedAt);
    s.ctx.clock.advance(2 * DAY);
    expect(findAccountView(s.ctx, account.id)).toMatchObject({
      status: 'connected',
      today: { connectionRequestLimit: 8, messageLimit: 16 },
      warmUp: { day: 3, days: 14 },
    });
    // Unipile reporting a reconnection, a replayed report and an account sync that drops and restores it keep day 3.
    expect(await handleHostedNotify(deps, { status: 'RECONNECTED', account_id: 'UNI_LATE', name: account.id })).toBe('ignored');
    const late = s.server.accounts.find((a) => a.id === 'UNI_LATE');
    s.server.accounts = s.server.accounts.filter((a) => a !== late);
    await (ctx.network as unknown as { syncAccounts(): Promise<unknown> }).syncAccounts();
    expect(s.ctx.db.select().from(accounts).where(eq(accounts.id, account.id)).get()!.status).toBe('disconnected');
    s.server.accounts.push(late);
    await (ctx.network as unknown as { syncAccounts(): Promise<unknown> }).syncAccounts();
    expect(findAccountView(s.ctx, account.id)).toMatchObject({ status: 'connected', warmUp: { day: 3, days: 14 } });
    expect(warmUpStartedAt()).toBe(linkedAt);
  });

  it('connects without a warm-up when the call or the config says so', async () => {
    const off = { ...production('https://outreach.example.com'), safety: resolveSafety({ warmUp: { onConnect: false } }) };
    const byConfig = await connectAccount(off, { name: 'Config off' });
    const byCall = await connectAccount(production('https://outreach.example.com'), { name: 'Call off', warmUp: false });
    const forced = await connectAccount(off, { name: 'Call on', warmUp: true });
    for (const r of [byConfig, byCall]) expect(r.account).toMatchObject({ today: { connectionRequestLimit: 25, messageLimit: 50 }, warmUp: null });
    expect(forced.account.warmUp).toEqual({ day: 1, days: 14 });
    const deps = {
      http: (off.network as unknown as { http: never }).http,
      store: (off.network as unknown as { store: never }).store,
      clock: s.ctx.clock,
      log: silentLogger(),
    };
    s.server.addAccount('UNI_OFF2', { name: 'Off' });
    expect(await handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_OFF2', name: byConfig.account.id })).toBe('linked');
    expect(findAccountView(s.ctx, byConfig.account.id)).toMatchObject({
      status: 'connected',
      today: { connectionRequestLimit: 25, messageLimit: 50 },
      warmUp: null,
    });
  });

  it('hasSalesNavigator in production is 400; a missing public URL is a clear 503 and leaves nothing behind', async () => {
    await expect(connectAccount(production('https://x.example'), { name: 'x', hasSalesNavigator: true })).rejects.toMatchObject({
      code: 'validation_error',
      details: { fields: ['hasSalesNavigator'] },
    });
    const before = s.ctx.db.select().from(accounts).all().length;
    await expect(connectAccount(production(undefined), { name: 'x' })).rejects.toMatchObject({
      code: 'upstream_unavailable',
      message: expect.stringContaining('UNIPILE_PUBLIC_URL'),
    });
    expect(s.ctx.db.select().from(accounts).all()).toHaveLength(before);
  });
});
