import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { draftFor } from '../../src/core/drafts/prepare.js';
import { addEndpoint, listEndpoints } from '../../src/core/webhooks/endpoints.js';
import { verifyStandardWebhook } from '../../src/core/webhooks/sign.js';
import { addWebhookEndpointTool } from '../../src/tools/operator/webhooks.js';
import { invokeTool, operatorCaller } from '../../src/tools/pipeline.js';
import { WebhookWorker } from '../../src/workers/webhooks/worker.js';
import { testCtx } from '../helpers.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { reviewWorkspace } from './helpers.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const BIN = fileURLToPath(new URL('../../bin/outreach.js', import.meta.url));

describe('draft.pending over a real endpoint', () => {
  const receivers: Receiver[] = [];
  const workers: WebhookWorker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('an endpoint subscribed to draft.pending alone gets one event when the queue fills, signed like any', async () => {
    const hooked = await startReceiver();
    const other = await startReceiver();
    receivers.push(hooked, other);
    const ws = reviewWorkspace(3) as any;
    ws.webhooks = { secret: SECRET, endpoints: [] };
    const ctx = testCtx({ workspace: ws });
    addEndpoint(ctx, { url: hooked.url, events: ['draft.pending'] });
    addEndpoint(ctx, { url: other.url, events: ['lead.tagged'] });
    const step = (leadId: string) => ({ campaignId: 'cmp_review', leadId, stepId: 'stp_note', variant: 'A', kind: 'invite' as const, text: 'Hello' });
    const first = draftFor(ctx, step('lead_r0'));
    draftFor(ctx, step('lead_r1'));
    const worker = new WebhookWorker(ctx, { policy: { mode: 'development', allowHosts: [] }, rng: () => 0.5, stopGraceMs: 100 });
    workers.push(worker);
    expect(await worker.drain()).toBe(1);
    expect(other.requests).toHaveLength(0);
    expect(hooked.requests).toHaveLength(1);
    const [req] = hooked.requests;
    const body = JSON.parse(req!.body);
    expect(body).toMatchObject({
      type: 'draft.pending',
      data: { campaign: { id: 'cmp_review' }, lead: { id: 'lead_r0' }, draft: { id: first.id, kind: 'invite' } },
    });
    expect(verifyStandardWebhook({ secret: SECRET, headers: req!.headers, body: req!.body, nowSeconds: Math.floor(ctx.clock.now() / 1000) })).toEqual({
      ok: true,
    });
  });
});

describe('subscribing to draft.pending', () => {
  it('the CLI, the workspace file and the dashboard tool accept it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drafts-webhook-'));
    try {
      const db = join(dir, 'w.db');
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OUTREACH_')));
      const added = spawnSync(process.execPath, [BIN, 'webhooks', 'add', '--url', 'http://127.0.0.1:9/hook', '--events', 'draft.pending', '--db', db], {
        encoding: 'utf8',
        env,
      });
      expect(added.status, added.stderr).toBe(0);
      const listed = spawnSync(process.execPath, [BIN, 'webhooks', 'list', '--json', '--db', db], { encoding: 'utf8', env });
      expect(JSON.parse(listed.stdout)).toMatchObject({ endpoints: [{ events: ['draft.pending'] }] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const ws = reviewWorkspace(1) as any;
    ws.webhooks = { secret: SECRET, endpoints: [{ url: 'http://127.0.0.1:9/file', events: ['draft.pending'] }] };
    const ctx = testCtx({ workspace: ws });
    const operator = operatorCaller(ctx, 'req_test');
    if (!operator.ok) throw new Error('no operator');
    const result = await invokeTool(ctx, addWebhookEndpointTool, {
      caller: operator.caller,
      input: { url: 'http://127.0.0.1:9/ui', events: ['draft.pending'] },
    });
    expect(result).toMatchObject({ ok: true });
    expect(listEndpoints(ctx).flatMap((e) => e.events)).toEqual(['draft.pending', 'draft.pending']);
  });
});

describe('approval from the CLI', () => {
  it('campaigns create and update take --approval, and name it when the value is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drafts-cli-'));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OUTREACH_')));
    const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, 'campaigns', ...args, '--db', join(dir, 'c.db')], { encoding: 'utf8', env });
    try {
      writeFileSync(join(dir, 'ws.json'), JSON.stringify(reviewWorkspace(1)));
      const seeded = spawnSync(process.execPath, [BIN, 'seed', '--file', join(dir, 'ws.json'), '--db', join(dir, 'c.db')], { encoding: 'utf8', env });
      expect(seeded.status, seeded.stderr).toBe(0);
      const made = cli('create', '--name', 'Careful', '--approval', 'required');
      expect(made.status, made.stderr).toBe(0);
      const id = /Created campaign (cmp_\w+)/.exec(made.stdout)?.[1] ?? '';
      const off = cli('update', id, '--approval', 'off');
      expect(off.status, off.stderr).toBe(0);
      expect(off.stdout).toContain('approval off');
      const bad = cli('update', id, '--approval', 'maybe');
      expect(bad.status).not.toBe(0);
      expect(bad.stderr.trim()).toMatch(/^outreach: --approval: .*"off"\|"required"/);
      expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
