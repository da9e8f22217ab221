import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { INTERRUPTED, listDeliveries } from '../../src/core/webhooks/deliveries.js';
import { openDatabase } from '../../src/db/connection.js';
import { webhookAttempts, webhookDeliveries, webhookEvents } from '../../src/db/schema.js';
import { countRows } from '../../src/db/tx.js';
import { silentLogger } from '../../src/log.js';
import { createContext } from '../../src/server.js';
import { WebhookWorker } from '../../src/workers/webhooks/worker.js';
import { tagLead, waitFor, webhookWorkspace } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const CHILD = fileURLToPath(new URL('./crash-child.mjs', import.meta.url));
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('crash safety', () => {
  it('events committed before a kill -9 are delivered after restart, in-flight ones again with the same id', async () => {
    let hold = true;
    const r: Receiver = await startReceiver((_req, res) => {
      if (!hold) res.writeHead(200).end();
    });
    cleanup.push(() => r.close());
    const dir = mkdtempSync(join(tmpdir(), 'webhook-crash-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'outreach.db');

    // Before the "server" starts: five events in the outbox.
    const seedCtx = createContext({ dbPath, env: 'development' }, silentLogger(), new FakeClock(Date.now()));
    loadWorkspace(seedCtx, WorkspaceFile.parse(webhookWorkspace([{ url: r.url }], { extraLeads: 8 })), { reset: false });
    const early = [0, 1, 2, 3, 4].map((i) => tagLead(seedCtx, `lead_bulk${i}`, 'Interested'));
    seedCtx.db.$client.close();

    // The server process: two attempts go out and hang, three more events are committed, then SIGKILL.
    const child = spawn(process.execPath, [CHILD, dbPath, 'lead_bulk5', 'lead_bulk6', 'lead_bulk7'], { stdio: ['ignore', 'pipe', 'pipe'] });
    cleanup.push(() => child.kill('SIGKILL'));
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    await waitFor(() => out.includes('ready') && r.requests.length === 2, `the child to be mid-delivery (stderr: ${err})`, 20_000);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const inFlight = r.requests.map((q) => q.headers['webhook-id']);

    // What the crash left behind: two leased attempts with no outcome, three events not fanned out.
    const left = openDatabase(dbPath);
    expect(countRows(left, webhookEvents, isNull(webhookEvents.fannedOutAt))).toBe(3);
    expect(countRows(left, webhookDeliveries, and(eq(webhookDeliveries.state, 'pending'), isNotNull(webhookDeliveries.leasedUntil)))).toBe(2);
    expect(countRows(left, webhookAttempts, isNull(webhookAttempts.finishedAt))).toBe(2);
    left.$client.close();

    // Restart: a new worker on the same file, once the dead process's leases have run out.
    hold = false;
    const ctx = createContext({ dbPath, env: 'development' }, silentLogger(), new FakeClock(Date.now() + 31_000));
    cleanup.push(() => ctx.db.$client.close());
    const worker = new WebhookWorker(ctx, { policy: { mode: 'development', allowHosts: [] } });
    cleanup.push(() => worker.stop());
    expect(await worker.drain()).toBe(8);

    const deliveries = listDeliveries(ctx, { limit: 100 });
    expect(deliveries).toHaveLength(8);
    expect(deliveries.every((d) => d.state === 'succeeded')).toBe(true);
    const allEvents = ctx.db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .all()
      .map((e) => e.id);
    expect(allEvents).toHaveLength(8);
    expect(allEvents).toEqual(expect.arrayContaining(early));
    expect(new Set(deliveries.map((d) => d.eventId))).toEqual(new Set(allEvents));
    const received = r.requests.slice(2).map((q) => q.headers['webhook-id']);
    expect(new Set(received)).toEqual(new Set(deliveries.map((d) => d.eventId)));
    for (const id of inFlight) {
      const d = deliveries.find((x) => x.eventId === id);
      expect(d?.log.map((a) => [a.attempt, a.status, a.error])).toEqual([
        [1, null, INTERRUPTED],
        [2, 200, null],
      ]);
    }
  });
});
