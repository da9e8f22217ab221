import { asc, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { listAccounts } from '../../../src/core/accounts/list.js';
import { accounts } from '../../../src/db/schema.js';
import { useSetup } from './helpers.js';

const t = useSetup();

const row = (id: string) => t.ctx.db.select().from(accounts).where(eq(accounts.id, id)).get();

describe('account sync', () => {
  it('maps each source status to ours', async () => {
    const cases: [string[], string][] = [
      [['OK'], 'connected'],
      [['OK', 'OK'], 'connected'],
      [['CONNECTING'], 'connecting'],
      [[], 'connecting'],
      [['CREDENTIALS'], 'disconnected'],
      [['PERMISSIONS'], 'disconnected'],
      [['OK', 'ERROR'], 'failed'],
      [['STOPPED'], 'failed'],
      [['SOMETHING_NEW'], 'failed'],
      [['ERROR', 'CREDENTIALS'], 'disconnected'],
    ];
    t.server.accounts = cases.map(([statuses], i) => ({ ...t.server.addAccount(`UNI_${i}`), sources: statuses.map((status) => ({ id: `s${i}`, status })) }));
    const result = await t.provider.syncAccounts();
    expect(result.created).toEqual(cases.map((_, i) => `acc_UNI_${i}`));
    expect(cases.map((_, i) => row(`acc_UNI_${i}`)?.status)).toEqual(cases.map(([, status]) => status));
  });

  it('refreshes linked rows, creates new ones, marks vanished ones disconnected, and ignores other providers', async () => {
    t.ctx.db.update(accounts).set({ name: 'Ada (operator name)', connectionRequestLimit: 10, status: 'failed' }).where(eq(accounts.id, 'acc_ada')).run();
    t.server.accounts = t.server.accounts.filter((a) => a.id !== 'UNI_NAV');
    t.server.addAccount('NEWLI', { salesNav: true, name: 'Grace Hopper' });
    t.server.addAccount('MAIL1', { type: 'GOOGLE_OAUTH' });
    t.server.accountsPageSize = 2; // two pages: the cursor is followed
    const result = await t.provider.syncAccounts();
    expect(result).toEqual({ created: ['acc_NEWLI'], updated: ['acc_ada', 'acc_off'], missing: ['acc_nav'] });
    expect(t.server.requestsTo('GET', /\/accounts$/)).toHaveLength(2);
    expect(row('acc_ada')).toMatchObject({ name: 'Ada (operator name)', connectionRequestLimit: 10, status: 'connected', hasSalesNavigator: false });
    expect(row('acc_off')).toMatchObject({ status: 'disconnected' });
    expect(row('acc_nav')).toMatchObject({ status: 'disconnected', providerAccountId: 'UNI_NAV' });
    // An account connected at Unipile, not through connect_account, may long be in use there: no warm-up.
    expect(row('acc_NEWLI')).toMatchObject({
      name: 'Grace Hopper',
      status: 'connected',
      hasSalesNavigator: true,
      active: true,
      connectionRequestLimit: 25,
      messageLimit: 50,
      providerAccountId: 'NEWLI',
      warmUpStartedAt: null,
    });
    expect(
      t.ctx.db
        .select({ p: accounts.providerAccountId })
        .from(accounts)
        .orderBy(asc(accounts.seq))
        .all()
        .map((r) => r.p),
    ).not.toContain('MAIL1');
    // The API lists the new account like any other.
    const listed = listAccounts(t.ctx, 'secret', { limit: 50 }).accounts.map((a) => a.id);
    expect(listed).toContain('acc_NEWLI');
  });

  it('is idempotent: a second sync changes nothing', async () => {
    t.server.addAccount('NEWLI');
    await t.provider.syncAccounts();
    const before = t.ctx.db.select().from(accounts).orderBy(asc(accounts.seq)).all();
    const again = await t.provider.syncAccounts();
    expect(again.created).toEqual([]);
    expect(t.ctx.db.select().from(accounts).orderBy(asc(accounts.seq)).all()).toEqual(before);
  });

  it('gives a fresh id when acc_<unipile id> is taken or not a valid id', async () => {
    t.ctx.db.insert(accounts).values({ id: 'acc_TAKEN', name: 'Manual', status: 'connected', createdAt: 0 }).run();
    t.server.addAccount('TAKEN');
    t.server.addAccount('***');
    const { created } = await t.provider.syncAccounts();
    expect(created).toHaveLength(2);
    for (const id of created) expect(id).toMatch(/^acc_[A-Za-z0-9]{16}$/);
  });

  it('runs from drainInbound, where a failure never reaches the caller', async () => {
    t.server.addAccount('NEWLI');
    await t.provider.drainInbound(t.ctx.clock.now());
    await t.provider.idle();
    expect(row('acc_NEWLI')).toBeDefined();
    t.ctx.clock.advance(11 * 60_000);
    t.server.failNext({ path: /\/accounts$/ }, { status: 401, type: 'missing_credentials', times: 3 });
    await expect(t.provider.drainInbound(t.ctx.clock.now())).resolves.toEqual([]);
    await t.provider.idle();
  });
});
