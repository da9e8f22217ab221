import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/core/members/members.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

/**
 * The dashboard's key tools record their audit event in the transaction that writes the key:
 * a write that fails leaves no event, a write that succeeds always leaves exactly one, and an
 * event that cannot be written takes the write down with it.
 */
describe('the key tools and the audit trail, in one transaction', () => {
  let server: TestServer;
  let cookie: string;
  let ownerId: string;
  const sql = (query: string, ...args: unknown[]) =>
    server.ctx.db.$client
      .prepare(query)
      .pluck()
      .get(...args);
  const events = (action: string): number => sql('SELECT count(*) FROM audit_events WHERE action = ?', action) as number;
  const keys = (): number => sql('SELECT count(*) FROM api_keys') as number;
  /** Every insert into the trail fails, as a full disk or a broken trigger would make it. */
  const breakTheTrail = () =>
    server.ctx.db.$client.exec("CREATE TEMP TRIGGER audit_broken BEFORE INSERT ON main.audit_events BEGIN SELECT RAISE(ABORT, 'the trail is broken'); END");
  const mendTheTrail = () => server.ctx.db.$client.exec('DROP TRIGGER temp.audit_broken');

  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    ownerId = addMember(server.ctx, { name: 'Olga Owner', email: 'olga@example.com' }).id;
    cookie = await login(server.url, server.ctx, ownerId);
  });
  afterAll(() => server.close());

  it('create_api_key: a refused scope leaves no key and no event; a created key leaves exactly one event, naming it', async () => {
    const before = keys();
    const refused = await appCall(server.url, cookie, 'create_api_key', { name: 'held', scope: { campaignIds: ['cmp_nowhere'] } });
    expect(refused.body.isError).toBe(true);
    expect(keys()).toBe(before);
    expect(events('create_api_key')).toBe(0);

    const made = await appCall(server.url, cookie, 'create_api_key', { name: 'reporting', scope: { readOnly: true } });
    expect(made.body.isError).toBe(false);
    const keyId = made.body.structuredContent.key.id as string;
    expect(made.body.structuredContent.key).toMatchObject({ name: 'reporting', scope: { readOnly: true } });
    expect(keys()).toBe(before + 1);
    expect(events('create_api_key')).toBe(1);
    const row = server.ctx.db.$client.prepare("SELECT actor_id, targets FROM audit_events WHERE action = 'create_api_key'").get() as {
      actor_id: string;
      targets: string;
    };
    expect(row.actor_id).toBe(ownerId);
    expect(JSON.parse(row.targets)).toEqual([keyId]);
    // The secret is shown once, to the caller, and never reaches the trail.
    const secret = made.body.structuredContent.secret as string;
    expect(sql('SELECT count(*) FROM audit_events WHERE summary LIKE ? OR targets LIKE ?', `%${secret}%`, `%${secret}%`)).toBe(0);
  });

  it('create_api_key: when its event cannot be written, no key is created either', async () => {
    const before = keys();
    breakTheTrail();
    try {
      const failed = await appCall(server.url, cookie, 'create_api_key', { name: 'orphan' });
      expect(failed.body.isError).toBe(true);
    } finally {
      mendTheTrail();
    }
    expect(keys()).toBe(before);
    expect(sql("SELECT count(*) FROM api_keys WHERE name = 'orphan'")).toBe(0);
  });

  it('revoke_api_key: an unknown key leaves no event; a revocation leaves one, and one that cannot be recorded does not happen', async () => {
    const made = await appCall(server.url, cookie, 'create_api_key', { name: 'to revoke' });
    const keyId = made.body.structuredContent.key.id as string;

    const unknown = await appCall(server.url, cookie, 'revoke_api_key', { keyId: 'key_nowhere' });
    expect(unknown.body.isError).toBe(true);
    expect(events('revoke_api_key')).toBe(0);

    breakTheTrail();
    try {
      const failed = await appCall(server.url, cookie, 'revoke_api_key', { keyId });
      expect(failed.body.isError).toBe(true);
    } finally {
      mendTheTrail();
    }
    expect(sql('SELECT revoked_at FROM api_keys WHERE id = ?', keyId)).toBeNull();
    expect(events('revoke_api_key')).toBe(0);

    const revoked = await appCall(server.url, cookie, 'revoke_api_key', { keyId });
    expect(revoked.body.structuredContent).toEqual({ keyId, revoked: true });
    expect(sql('SELECT revoked_at FROM api_keys WHERE id = ?', keyId)).not.toBeNull();
    expect(events('revoke_api_key')).toBe(1);
    // Revoking again succeeds (harmless) and changes nothing, so it leaves no event.
    expect((await appCall(server.url, cookie, 'revoke_api_key', { keyId })).body.isError).toBe(false);
    expect(events('revoke_api_key')).toBe(1);
  });
});
