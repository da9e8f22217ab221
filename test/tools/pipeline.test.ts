import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { workspace } from '../../src/db/schema.js';
import { toolByName } from '../../src/tools/index.js';
import { admitRoute, authenticate, invokeTool, peekRefusal, PIPELINE } from '../../src/tools/pipeline.js';
import { TEST_KEY, testCtx } from '../helpers.js';
import { probeTool } from '../ratelimit/probe.js';

const ADDRESS = '203.0.113.7';
const credits = toolByName.get('get_credits')!;

function signedIn(ctx: ReturnType<typeof testCtx>) {
  const auth = authenticate(ctx, { apiKey: TEST_KEY }, { requestId: 'r', clientAddress: ADDRESS });
  if (!auth.ok) throw auth.error;
  return auth.caller;
}

describe('the pipeline is one ordered list of stages', () => {
  it('names its stages in order', () => {
    expect(PIPELINE).toEqual(['auth_guard', 'key', 'workspace_plan', 'tool_plan', 'role', 'scope', 'rate_limit', 'input', 'confirm', 'idempotency', 'handler']);
  });

  it('authentication refuses at its own stages, and counts a wrong key against the address', () => {
    const ctx = testCtx({ limits: { authFailuresPerMinute: 2 } });
    const missing = authenticate(ctx, {}, { requestId: 'r', clientAddress: ADDRESS });
    expect(!missing.ok && [missing.stage, missing.error.code]).toEqual(['key', 'unauthorized']);
    for (let i = 0; i < 2; i++) {
      const wrong = authenticate(ctx, { apiKey: 'sk_test_wrong_0000000000000000000000000' }, { requestId: 'r', clientAddress: ADDRESS });
      expect(!wrong.ok && wrong.stage).toBe('key');
    }
    // Blocked now, even with the right key: the guard comes first.
    const blocked = authenticate(ctx, { apiKey: TEST_KEY }, { requestId: 'r', clientAddress: ADDRESS });
    expect(!blocked.ok && [blocked.stage, blocked.error.code]).toEqual(['auth_guard', 'rate_limited']);
    expect(authenticate(ctx, { apiKey: TEST_KEY }, { requestId: 'r', clientAddress: '198.51.100.1' }).ok).toBe(true);

    ctx.db
      .update(workspace)
      .set({ plan: 'free' })
      .where(eq(workspace.id, ctx.db.select().from(workspace).get()!.id))
      .run();
    const free = authenticate(ctx, { apiKey: TEST_KEY }, { requestId: 'r' });
    expect(!free.ok && [free.stage, free.error.code]).toEqual(['workspace_plan', 'plan_required']);
  });

  it('invokeTool refuses at input and idempotency, and at rate_limit once the bucket is empty', async () => {
    const ctx = testCtx({ limits: { globalPerMinute: 2 } });
    const caller = () => signedIn(ctx);
    const bad = await invokeTool(ctx, credits, { caller: caller(), input: { nope: 1 } });
    expect(!bad.ok && [bad.stage, bad.error.code]).toEqual(['input', 'validation_error']);
    const key = await invokeTool(ctx, credits, { caller: caller(), input: {}, idempotencyKey: '' });
    // get_credits is not idempotent, so the face never passes a key; the pipeline still checks one given.
    expect(!key.ok && [key.stage, key.error.details.fields]).toEqual(['idempotency', ['idempotencyKey']]);
    const missing = await invokeTool(ctx, toolByName.get('get_campaign')!, { caller: caller(), input: { campaignId: 'cmp_nope' } });
    expect(!missing.ok && [missing.stage, missing.error.code]).toEqual(['rate_limit', 'rate_limited']);
  });

  it('a handler failure names the handler stage', async () => {
    const ctx = testCtx();
    const missing = await invokeTool(ctx, toolByName.get('get_campaign')!, { caller: signedIn(ctx), input: { campaignId: 'cmp_nope' } });
    expect(!missing.ok && [missing.stage, missing.error.code]).toEqual(['handler', 'not_found']);
  });

  it('an unknown route takes a token from the global bucket only', () => {
    const ctx = testCtx({ limits: { globalPerMinute: 2 } });
    expect(admitRoute(ctx, signedIn(ctx))).toBeNull();
    expect(admitRoute(ctx, signedIn(ctx))).toBeNull();
    const refused = admitRoute(ctx, signedIn(ctx));
    expect(refused && [refused.stage, refused.error.code]).toEqual(['rate_limit', 'rate_limited']);
    expect(refused?.headers['Retry-After']).toMatch(/^\d+$/);
  });

  it('peeking runs the same stages and charges nothing: no token, no failed-key count', async () => {
    const ctx = testCtx({ limits: { globalPerMinute: 2, authFailuresPerMinute: 1, perMinute: { leads_add: 1 } } });
    const classed = probeTool('leads_add');
    expect(peekRefusal(ctx, { apiKey: TEST_KEY }, ADDRESS, classed)).toBeNull();
    // A wrong key peeked is not counted: a real attempt is still allowed afterwards.
    const wrong = peekRefusal(ctx, { apiKey: 'sk_test_wrong_0000000000000000000000000' }, ADDRESS, undefined);
    expect(wrong?.stage).toBe('key');
    expect(signedIn(ctx).keyId).toBeTruthy();
    // The class bucket: one real call empties it; a peek then refuses exactly as the call would.
    expect((await invokeTool(ctx, classed, { caller: signedIn(ctx), input: {} })).ok).toBe(true);
    const peeked = peekRefusal(ctx, { apiKey: TEST_KEY }, ADDRESS, classed);
    const called = await invokeTool(ctx, classed, { caller: signedIn(ctx), input: {} });
    expect(peeked).not.toBeNull();
    expect(called.ok).toBe(false);
    expect(peeked).toEqual(called);
    // Peeks took nothing from the global bucket (2 a minute): one real call is still admitted.
    expect(admitRoute(ctx, signedIn(ctx))).toBeNull();
    expect(classed.runs()).toBe(1);
  });
});
