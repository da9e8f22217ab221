// A server-like process for crash.test.ts: runs the webhook worker on the wall clock against a
// file database, writes more events, says "ready", and waits to be killed with SIGKILL.
// It runs from the build (dist/), which `npm test` makes first.
import { eq } from 'drizzle-orm';
import { recordLeadEvent } from '../../dist/core/webhooks/outbox.js';
import { leads } from '../../dist/db/schema.js';
import { transaction } from '../../dist/db/tx.js';
import { silentLogger } from '../../dist/log.js';
import { createContext } from '../../dist/server.js';
import { WebhookWorker } from '../../dist/workers/webhooks/worker.js';

const [dbPath, ...lateLeadIds] = process.argv.slice(2);
const ctx = createContext({ dbPath, env: 'development' }, silentLogger());
// A long poll interval: only the first round runs, so later events stay in the outbox unsent.
const worker = new WebhookWorker(ctx, { policy: { mode: 'development', allowHosts: [] }, concurrencyPerEndpoint: 2, pollIntervalMs: 600_000 });
worker.start();
// After the first round has claimed its attempts: these events stay in the outbox, not fanned out.
setTimeout(() => {
  transaction(ctx.db, () => {
    for (const id of lateLeadIds) {
      const row = ctx.db.select().from(leads).where(eq(leads.id, id)).get();
      recordLeadEvent(ctx, 'lead.tagged', row, { tag: 'Interested', previousTag: null });
    }
  });
  process.stdout.write('ready\n');
}, 300);
setInterval(() => {}, 1_000);
