import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { connectAccount } from '../../../src/core/accounts/manage.js';
import type { Ctx } from '../../../src/core/context.js';
import { accounts } from '../../../src/db/schema.js';
import { createUnipileProvider, handleHostedNotify, HOSTED_AUTH_NOTIFY_PATH } from '../../../src/network/unipile/index.js';
import { silentLogger } from '../../../src/log.js';
import { SECRET, useSetup } from './helpers.js';

/** connect_account in production, against the Unipile contract server's hosted auth link. */
describe('hosted sign-in (production connect_account)', () => {
  const s = useSetup();
  const production = (publicUrl?: string): Ctx => {
    const provider = createUnipileProvider(
      { dsn: s.server.url, apiKey: s.server.apiKey, inboundSecret: SECRET, publicUrl },
      { db: s.ctx.db, clock: s.ctx.clock, log: silentLogger(), timeoutMs: 2_000, sleep: async () => undefined },
    );
    return { ...s.ctx, env: 'production', network: provider };
  };

  it('asks Unipile for a link naming our account, and the account waits connecting', async () => {
    const ctx = production('https://outreach.example.com/');
    const r = await connectAccount(ctx, { name: 'Field sales', messageLimit: 60 });
    expect(r.connectUrl).toMatch(/^https:\/\/account\.unipile\.com\/hosted\//);
    expect(r.account).toMatchObject({ name: 'Field sales', status: 'connecting', hasSalesNavigator: false, today: { messageLimit: 60 } });
    const link = s.server.hostedLinks[0]!;
    expect(link).toMatchObject({ type: 'create', providers: ['LINKEDIN'], name: r.account.id, notify_url: `https://outreach.example.com${HOSTED_AUTH_NOTIFY_PATH}` });
    expect(link.api_url).toBe(new URL(s.server.url).origin);
  });

  it('the notify call links the account once Unipile confirms it; Sales Navigator comes from Unipile', async () => {
    const ctx = production('https://outreach.example.com');
    const { account } = await connectAccount(ctx, { name: 'Nav' });
    s.server.addAccount('UNI_NEW', { salesNav: true, name: 'New one' });
    const http = (ctx.network as unknown as { http: never }).http;
    const deps = { http, db: s.ctx.db, clock: s.ctx.clock, log: silentLogger() };
    expect(await handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_NEW', name: account.id })).toBe('linked');
    const row = s.ctx.db.select().from(accounts).where(eq(accounts.id, account.id)).get()!;
    expect(row).toMatchObject({ status: 'connected', hasSalesNavigator: true, providerAccountId: 'UNI_NEW' });
    // A replay, or a report naming an account Unipile does not hold, changes nothing.
    expect(await handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_NEW', name: account.id })).toBe('ignored');
    await expect(handleHostedNotify(deps, { status: 'CREATION_SUCCESS', account_id: 'UNI_FORGED', name: 'acc_ada' })).rejects.toBeTruthy();
    expect(await handleHostedNotify(deps, { nothing: true })).toBe('invalid');
    s.server.violations.length = 0; // the forged id's 404 is the contract server answering, not our violation
  });

  it('hasSalesNavigator in production is 400; a missing public URL is a clear 503 and leaves nothing behind', async () => {
    await expect(connectAccount(production('https://x.example'), { name: 'x', hasSalesNavigator: true })).rejects.toMatchObject({
      code: 'validation_error',
      details: { fields: ['hasSalesNavigator'] },
    });
    const before = s.ctx.db.select().from(accounts).all().length;
    await expect(connectAccount(production(undefined), { name: 'x' })).rejects.toMatchObject({ code: 'upstream_unavailable', message: expect.stringContaining('UNIPILE_PUBLIC_URL') });
    expect(s.ctx.db.select().from(accounts).all()).toHaveLength(before);
  });
});
