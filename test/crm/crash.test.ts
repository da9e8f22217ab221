import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { crmBacklog, listCrmPushes, listCrmSyncLog } from '../../src/core/crm/log.js';
import { updateLead } from '../../src/core/leads/update.js';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace } from '../../src/core/seed/load.js';
import { silentLogger } from '../../src/log.js';
import { HubSpotCrm } from '../../src/network/crm/index.js';
import { createContext } from '../../src/server.js';
import { CrmWorker } from '../../src/workers/crm/worker.js';
import { engineWorkspace } from '../engine/helpers.js';
import { BIN, childEnv, kill9, until, type Child } from '../imports/children.js';
import { HubSpotStandIn } from '../network/hubspot/stand-in.js';

const TOKEN_ENV = 'HUBSPOT_CRASH_TOKEN';
const SECRET = 'cursor-secret';
const LEADS = 5;

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/**
 * A proxy in front of the stand-in that carries every request, and holds the answer of each
 * note and deal create once the stand-in has made it: the server that sent it dies waiting, in
 * the window where HubSpot has the object and the outbox does not know it.
 */
async function holdingProxy(target: string): Promise<{ url: string; held: () => number; close: () => Promise<void> }> {
  const waiting: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hold = req.method === 'POST' && (req.url === '/crm/v3/objects/notes' || req.url === '/crm/v3/objects/deals');
      const out = request(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', () => {
          if (hold) {
            waiting.push(res);
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
        });
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => waiting.length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of waiting) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('CRM sync across a crash', () => {
  it('a server killed mid-push loses no push and makes none twice: counted at the stand-in', async () => {
    const hs = new HubSpotStandIn();
    await hs.start();
    cleanup.push(() => hs.stop());
    const proxy = await holdingProxy(hs.url);
    cleanup.push(() => proxy.close());
    const dir = mkdtempSync(join(tmpdir(), 'crm-crash-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const dbPath = join(dir, 'outreach.db');
    const configPath = join(dir, 'config.json');
    writeFileSync(configPath, JSON.stringify({ crm: { hubspot: { tokenEnv: TOKEN_ENV, basePath: proxy.url } } }));

    // Before the server starts: five leads tagged Interested, fifteen pushes in the outbox.
    const config = { crm: { hubspot: { tokenEnv: TOKEN_ENV } } };
    const seed = createContext({ dbPath, env: 'development', config }, silentLogger());
    const slugs = Array.from({ length: LEADS }, (_, i) => `crash-person-${i}-sim-no-reply`);
    loadWorkspace(seed, WorkspaceFile.parse(engineWorkspace(slugs, { status: 'READY_TO_SEND' })), { reset: false });
    for (let i = 1; i <= LEADS; i++) updateLead(seed, 'cmp', `lead_${i}`, { tag: 'Interested' });
    expect(crmBacklog(seed)).toMatchObject({ pending: 3 * LEADS });
    seed.db.$client.close();

    // The server, as a user runs it: its CRM worker makes the contacts, then hangs on the notes HubSpot made.
    const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', '--db', dbPath, '--config', configPath], {
      cwd: dir,
      env: { ...childEnv(), [TOKEN_ENV]: hs.token },
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const child: Child = {
      proc: proc as Child['proc'],
      out: () => out,
      err: () => err,
      exited: new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal }))),
    };
    cleanup.push(() => kill9(child));
    await until(() => proxy.held() >= 2 || (proc.exitCode !== null && Promise.reject(new Error(`the server exited: ${err}`))), 'pushes in flight', 60_000);
    await kill9(child);
    const made = { contacts: hs.objects.contacts.size, notes: hs.objects.notes.size, deals: hs.objects.deals.size };
    expect(made.notes + made.deals).toBeGreaterThanOrEqual(2);
    // The pushes whose note or deal HubSpot already had when the server died (each names its push).
    const madeBefore = new Set([
      ...[...hs.objects.notes.values()].flatMap((n) => /\[outreach push ([^\]]+)\]/.exec(n.properties.hs_note_body ?? '')?.[1] ?? []),
      ...[...hs.objects.deals.values()].flatMap((d) => d.properties.outreach_push_id ?? []),
    ]);

    // Restart on the same file once the dead server's leases have run out.
    const ctx = createContext({ dbPath, env: 'development', config }, silentLogger(), new FakeClock(Date.now() + 151_000));
    cleanup.push(() => ctx.db.$client.close());
    const inFlight = listCrmPushes(ctx, SECRET, { state: 'pending', limit: 200 }).pushes.filter((p) => p.attempts === 1);
    expect(inFlight.length).toBeGreaterThanOrEqual(2);
    const worker = new CrmWorker(ctx, new HubSpotCrm({ tokenEnv: TOKEN_ENV, env: { [TOKEN_ENV]: hs.token }, basePath: hs.url }));
    cleanup.push(() => worker.stop());
    await worker.drain();

    // Every push made, each once at HubSpot.
    expect(crmBacklog(ctx)).toMatchObject({ pending: 0, failed: 0, succeeded: 3 * LEADS });
    expect(hs.objects.contacts.size).toBe(LEADS);
    expect(hs.objects.notes.size).toBe(LEADS);
    expect(hs.objects.deals.size).toBe(LEADS);
    const bodies = [...hs.objects.notes.values()].map((n) => n.properties.hs_note_body ?? '');
    for (const push of listCrmPushes(ctx, SECRET, { limit: 200 }).pushes.filter((p) => p.kind === 'note')) {
      expect(bodies.filter((b) => b.includes(`[outreach push ${push.id}]`))).toHaveLength(1);
    }
    expect(new Set([...hs.objects.deals.values()].map((d) => d.properties.outreach_push_id)).size).toBe(LEADS);
    // The pushes cut off were made again with their own id; a held note or deal found what the
    // first attempt made. A note or deal claimed but not yet at HubSpot when the server died is
    // made by its second attempt. (A contact push can be cut off too, when the kill lands between
    // its answer and its record: its second attempt finds the contact by email and updates it.)
    const log = listCrmSyncLog(ctx, SECRET, { direction: 'push', limit: 200 }).entries;
    const cutOffObjects = inFlight.filter((p) => p.kind !== 'contact');
    expect(cutOffObjects.filter((p) => madeBefore.has(p.id)).length).toBeGreaterThanOrEqual(2);
    for (const push of inFlight) {
      const entry = log.find((e) => e.pushId === push.id);
      expect(entry?.outcome).toBe('succeeded');
      const second = push.kind === 'contact' ? / \(attempt 2\)$/ : madeBefore.has(push.id) ? /already there \(attempt 2\)$/ : / created \(attempt 2\)$/;
      expect(entry?.detail).toMatch(second);
    }
  });
});
