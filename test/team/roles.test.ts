import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEvents } from '../../src/core/audit/list.js';
import { addMember } from '../../src/core/members/members.js';
import { roleAllows, ROLES, TOOL_AREAS, type Role } from '../../src/core/members/roles.js';
import { dashboardTools } from '../../src/tools/index.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

/** One call per role that the role may not make, and one it may. */
const FORBIDDEN: Record<Exclude<Role, 'owner'>, { name: string; args: Record<string, unknown> }> = {
  admin: { name: 'add_member', args: { name: 'Eve', email: 'eve@example.com', role: 'admin' } },
  operator: { name: 'create_api_key', args: { name: 'mine' } },
  reviewer: { name: 'pause_campaign', args: { campaignId: 'cmp_x' } },
  viewer: { name: 'update_drafts', args: { drafts: [] } },
};
const ALLOWED: Record<Role, string> = {
  owner: 'list_members',
  admin: 'list_api_keys',
  operator: 'list_campaigns',
  reviewer: 'list_drafts',
  viewer: 'get_credits',
};

describe('roles in the server', () => {
  let server: TestServer;
  const ids = {} as Record<Role, string>;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    const owner = addMember(server.ctx, { name: 'Olga Owner', email: 'olga@example.com' });
    ids.owner = owner.id;
    for (const role of ROLES.slice(1)) ids[role] = addMember(server.ctx, { name: `A ${role}`, email: `${role}@example.com`, role }).id;
  });
  afterAll(() => server.close());

  it('names every dashboard tool in the role map, so none falls to the owner alone by omission', () => {
    expect(dashboardTools.map((t) => t.name).filter((n) => TOOL_AREAS[n] === undefined)).toEqual([]);
  });

  it('makes the first member the owner, whatever role was asked', () => {
    expect(server.ctx.db.$client.prepare("SELECT role FROM members WHERE email = 'olga@example.com'").pluck().get()).toBe('owner');
  });

  for (const role of ROLES) {
    it(`${role}: the session lists only its tools, and the server refuses the others with 403 forbidden`, async () => {
      const cookie = await login(server.url, server.ctx, ids[role]);
      const session = await fetch(`${server.url}/app/api/session`, { headers: { cookie } });
      const body = (await session.json()) as { member: { id: string; role: string }; tools: string[] };
      expect(body.member).toMatchObject({ id: ids[role], role });
      const expected = dashboardTools.filter((t) => roleAllows(role, { name: t.name, readOnly: t.annotations.readOnlyHint })).map((t) => t.name);
      expect(body.tools).toEqual(expected);

      const ok = await appCall(server.url, cookie, ALLOWED[role]);
      expect(ok.status).toBe(200);
      expect(ok.body.isError).toBe(false);

      if (role === 'owner') return;
      const refused = FORBIDDEN[role];
      expect(body.tools).not.toContain(refused.name);
      const res = await fetch(`${server.url}/app/api/call`, {
        method: 'POST',
        headers: { cookie, origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify({ name: refused.name, arguments: refused.args }),
      });
      expect(res.status).toBe(403);
      const error = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
      expect(error.error).toMatchObject({ code: 'forbidden', details: { role, tool: refused.name } });
    });
  }

  it('a reviewer decides drafts and files conversations, and sends words only through drafts', () => {
    const writes = dashboardTools.filter((t) => !t.annotations.readOnlyHint && roleAllows('reviewer', { name: t.name, readOnly: false })).map((t) => t.name);
    expect(writes.sort()).toEqual(['approve_matching_drafts', 'mark_conversation_done', 'update_drafts'].sort());
  });

  it('a viewer changes nothing', () => {
    expect(dashboardTools.filter((t) => !t.annotations.readOnlyHint && roleAllows('viewer', { name: t.name, readOnly: false }))).toEqual([]);
  });

  it("a disabled member's session ends at once", async () => {
    const member = addMember(server.ctx, { name: 'Temp', email: 'temp@example.com', role: 'operator' });
    const cookie = await login(server.url, server.ctx, member.id);
    expect((await appCall(server.url, cookie, 'list_campaigns')).status).toBe(200);
    // The member's open change stream ends with the session, though nothing else changes.
    const stream = await fetch(`${server.url}/app/api/events`, { headers: { cookie, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const body = stream.body!.getReader();
    const ended = (async () => {
      for (;;) if ((await body.read()).done) return true;
    })();
    const owner = await login(server.url, server.ctx, ids.owner);
    const disabled = await appCall(server.url, owner, 'disable_member', { memberId: member.id });
    expect(disabled.body.structuredContent).toMatchObject({ member: { id: member.id }, sessionsEnded: 1 });
    const timeout = new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref());
    expect(await Promise.race([ended, timeout])).toBe(true);
    expect((await appCall(server.url, cookie, 'list_campaigns')).status).toBe(401);
    expect((await fetch(`${server.url}/app/api/session`, { headers: { cookie } })).status).toBe(401);

    // Enabled again: the old session stays ended, a new link signs them in; one audit event.
    const enabled = await appCall(server.url, owner, 'enable_member', { memberId: member.id });
    expect(enabled.body.structuredContent).toMatchObject({ member: { id: member.id, disabledAt: null } });
    expect((await appCall(server.url, cookie, 'list_campaigns')).status).toBe(401);
    const fresh = await login(server.url, server.ctx, member.id);
    expect((await appCall(server.url, fresh, 'list_campaigns')).status).toBe(200);
    const events = listAuditEvents(server.ctx, 'secret', { targetId: member.id, limit: 10 }).events.map((e) => [e.action, e.actor.id]);
    expect(events.filter(([action]) => action === 'enable_member')).toEqual([['enable_member', ids.owner]]);
    // Only the owner enables: an admin is refused, as for every member tool.
    const admin = await login(server.url, server.ctx, ids.admin);
    expect((await appCall(server.url, admin, 'enable_member', { memberId: member.id })).status).toBe(403);
  });

  it('the owner cannot be disabled, and enabling an active member changes nothing', async () => {
    const owner = await login(server.url, server.ctx, ids.owner);
    const refused = await appCall(server.url, owner, 'disable_member', { memberId: ids.owner });
    expect(refused.body.isError).toBe(true);
    expect(refused.body.content[0]!.text).toMatch(/the owner cannot be disabled/);
    const same = await appCall(server.url, owner, 'enable_member', { memberId: ids.owner });
    expect(same.body.structuredContent).toMatchObject({ member: { id: ids.owner, role: 'owner', disabledAt: null } });
  });
});
