import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connection.js';
import { simInbox } from '../../src/db/schema.js';
import { SqliteSimInboxStore } from '../../src/core/network/sim-inbox-store.js';
import { SimulatedNetwork, acceptanceDecision } from '../../src/network/sim/index.js';
import { runSimInboxStoreContract } from './inbox-contract.js';
import { account, rejection, url } from './helpers.js';

runSimInboxStoreContract('sqlite', () => new SqliteSimInboxStore(openDatabase(':memory:'), new FakeClock()));

describe('SqliteSimInboxStore', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sim-inbox-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('delivers responses scheduled before a restart, once, and keeps delivered rows', async () => {
    const path = join(dir, 'inbox.db');
    const clock = new FakeClock(Date.parse('2026-11-21T12:00:00Z'));
    const db1 = openDatabase(path);
    const before = new SimulatedNetwork({ clock, inbox: new SqliteSimInboxStore(db1, clock) });
    await before.sendConnectionRequest({ account, networkUrl: url('ada-sim-fast-accept'), note: null });
    db1.$client.close();

    const db2 = openDatabase(path);
    const after = new SimulatedNetwork({ clock, inbox: new SqliteSimInboxStore(db2, clock) });
    const due = acceptanceDecision('ada-sim-fast-accept', clock.now()).at!;
    expect(await after.drainInbound(due - 1)).toEqual([]);
    const events = await after.drainInbound(due);
    expect(events.map((e) => e.type)).toEqual(['invitation_accepted']);
    expect(await after.drainInbound(due + 1000)).toEqual([]);
    // A re-sent invitation cannot schedule the same acceptance again.
    await after.sendConnectionRequest({ account, networkUrl: url('ada-sim-fast-accept'), note: null });
    expect(await after.drainInbound(due + 10 ** 9)).toEqual([]);
    expect(db2.select().from(simInbox).all()).toHaveLength(1);
    db2.$client.close();
  });
});

describe('sim-outage in an account id', () => {
  it('fails the health check and every operation with upstream_unavailable', async () => {
    const clock = new FakeClock();
    const net = new SimulatedNetwork({ clock });
    const acc = { id: 'acc_sim-outage', hasSalesNavigator: true };
    expect((await rejection(net.accountHealth(acc))).code).toBe('upstream_unavailable');
    expect((await rejection(net.lookupProfile({ account: acc, networkUrl: url('ada'), depth: 'basic' }))).code).toBe('upstream_unavailable');
    expect((await rejection(net.sendMessage({ account: acc, recipient: { networkUrl: url('ada') }, text: 'Hi' }))).code).toBe('upstream_unavailable');
  });
});
