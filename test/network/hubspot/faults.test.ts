import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HubSpotCrm } from '../../../src/network/crm/index.js';
import { crmError, lead, type Rig, rig, TOKEN_ENV } from './helpers.js';

let r: Rig;
beforeEach(async () => {
  r = await rig();
});
afterEach(async () => {
  await r.hs.stop();
});

describe('HubSpot failures map to CrmError, retryable or not', () => {
  it('429 is retryable and carries Retry-After; the client does not retry on its own', async () => {
    r.hs.fail({ kind: 'contacts.search', status: 429, retryAfter: 7 });
    const e = await crmError(r.crm.upsertContact(lead()));
    expect(e).toMatchObject({ retryable: true, status: 429, retryAfterMs: 7000 });
    expect(r.hs.count('contacts.search')).toBe(1);
  });

  it('429 without Retry-After is retryable with no wait given', async () => {
    r.hs.fail({ status: 429 });
    expect(await crmError(r.crm.verify())).toMatchObject({ retryable: true, status: 429, retryAfterMs: null });
  });

  it.each([500, 502, 503, 504])('%i is retryable', async (status) => {
    r.hs.fail({ kind: 'contacts.create', status });
    const e = await crmError(r.crm.upsertContact(lead()));
    expect(e).toMatchObject({ retryable: true, status });
    expect(r.hs.objects.contacts.size).toBe(0);
  });

  it('a dropped connection is retryable', async () => {
    r.hs.fail({ kind: 'contacts.search', drop: true });
    expect(await crmError(r.crm.upsertContact(lead()))).toMatchObject({ retryable: true, status: null });
  });

  it('HubSpot down is retryable, and the same adapter works when it comes back', async () => {
    await r.hs.goDown();
    const e = await crmError(r.crm.upsertContact(lead()));
    expect(e).toMatchObject({ retryable: true, status: null });
    expect(e.message).toMatch(/unreachable/);
    await r.hs.comeBack();
    expect((await r.crm.upsertContact(lead())).created).toBe(true);
  });

  it('a call that outlasts the timeout is retryable', async () => {
    await r.hs.stop();
    // A server that accepts and never answers.
    const { createServer } = await import('node:net');
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const crm = new HubSpotCrm({ tokenEnv: TOKEN_ENV, env: r.env, basePath: `http://127.0.0.1:${port}`, timeoutMs: 300 });
    try {
      expect(await crmError(crm.verify())).toMatchObject({ retryable: true, status: null });
    } finally {
      silent.close();
    }
    await r.hs.comeBack();
  });

  it('a refused token (401) is not retryable', async () => {
    r.env[TOKEN_ENV] = 'pat-na1-wrong';
    const e = await crmError(r.crm.verify());
    expect(e).toMatchObject({ retryable: false, status: 401 });
    expect(e.message).toMatch(/refused the token/);
  });

  it('a missing scope (403) is not retryable', async () => {
    r.hs.fail({ status: 403, message: 'This app hasn’t been granted all required scopes to make this call.' });
    expect(await crmError(r.crm.upsertContact(lead()))).toMatchObject({ retryable: false, status: 403 });
  });

  it('a request HubSpot refuses (400: a stage the pipeline lacks) is not retryable and makes nothing', async () => {
    const { contactId } = await r.crm.upsertContact(lead());
    const e = await crmError(r.crm.openDeal(contactId, { pushId: 'd', name: 'x', pipelineId: 'default', stageId: 'nope', ownerId: null }));
    expect(e).toMatchObject({ retryable: false, status: 400 });
    expect(e.message).toMatch(/not a valid dealstage/);
    expect(r.hs.objects.deals.size).toBe(0);
  });

  it('no token in the environment is not retryable and names the variable, calling nothing', async () => {
    delete r.env[TOKEN_ENV];
    const e = await crmError(r.crm.verify());
    expect(e).toMatchObject({ retryable: false });
    expect(e.message).toContain(TOKEN_ENV);
    expect(r.hs.count()).toBe(0);
  });

  it('a change cursor this adapter did not write is refused, not retried', async () => {
    expect(await crmError(r.crm.changedContacts('not-a-cursor', 10))).toMatchObject({ retryable: false });
  });
});
