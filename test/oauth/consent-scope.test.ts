import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_KEY, type TestServer } from '../helpers.js';
import { authorizeUrl, bearerClient, mcpPost, openConsent, pkce, REDIRECT, registerClient, submitConsent, token } from './helpers.js';

/**
 * The scope a person chooses on the consent page holds the grant (the browser test covers
 * read-only and one campaign): here the toolsets and the expiry, over plain HTTP.
 */
describe('the scope chosen on the consent page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  async function grant(fields: Record<string, string>) {
    const client = await registerClient(server);
    const { verifier, challenge } = pkce();
    const form = await openConsent(authorizeUrl(server, client.client_id, challenge));
    const r = await submitConsent(server, form, { api_key: TEST_KEY, ...fields });
    expect(r.status, r.html.slice(0, 300)).toBe(302);
    const code = new URL(r.location!).searchParams.get('code')!;
    const t = await token(server, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT });
    expect(t.status).toBe(200);
    return { access: t.body.access_token as string, refresh: t.body.refresh_token as string, clientId: client.client_id };
  }

  it('toolsets: the grant lists and calls only the drafts tools', async () => {
    const mcp = await bearerClient(server, (await grant({ toolsets: 'drafts' })).access);
    try {
      const names = (await mcp.listTools()).tools.map((t) => t.name);
      expect(names).toContain('list_drafts');
      expect(names).not.toContain('list_campaigns');
      expect(names).not.toContain('add_lead');
    } finally {
      await mcp.close();
    }
  });

  it('an expiry: the grant works until then, and is refused with key_expired after, even with a fresh token', async () => {
    const { access, refresh, clientId } = await grant({ expires_days: '7' });
    expect((await mcpPost(server, { authorization: `Bearer ${access}` })).status).not.toBe(401);
    server.ctx.clock.advance(7 * 86_400_000 + 60_000);
    // The access token's own hour is long gone too: a refreshed token is what a client would hold.
    const refreshed = await token(server, { grant_type: 'refresh_token', refresh_token: refresh, client_id: clientId });
    const said =
      refreshed.status === 200
        ? await mcpPost(server, { authorization: `Bearer ${refreshed.body.access_token}` }).then(async (r) => `${r.status} ${await r.text()}`)
        : `${refreshed.status} ${JSON.stringify(refreshed.body)}`;
    expect(said).toMatch(/^(401|400) /);
    expect(said).toMatch(/key_expired|expired on/);
  });

  it('a consent is one event in the audit trail, by the key pasted, naming the client and the grant; a refused one leaves none', async () => {
    const events = () => server.ctx.db.$client.prepare("SELECT * FROM audit_events WHERE action = 'oauth.grant' ORDER BY seq").all() as any[];
    const before = events().length;
    const grants = () =>
      server.ctx.db.$client.prepare('SELECT id, client_id AS clientId, api_key_id AS keyId FROM oauth_grants').all() as Array<{
        id: string;
        clientId: string;
        keyId: string;
      }>;
    const earlier = new Set(grants().map((g) => g.id));
    const { clientId } = await grant({ access: 'read' });
    const after = events();
    expect(after).toHaveLength(before + 1);
    const event = after.at(-1);
    expect(event).toMatchObject({ actor_type: 'key', summary: 'Grant an OAuth client read-only access' });
    // The client is registered once per metadata, so earlier tests' grants share it: this one is the new row.
    const made = grants().filter((g) => !earlier.has(g.id));
    expect(made).toHaveLength(1);
    const granted = made[0]!;
    expect(granted.clientId).toBe(clientId);
    expect(event.actor_id).toBe(granted.keyId);
    expect(JSON.parse(event.targets)).toEqual([clientId, granted.id]);
    // A refused consent (an unknown toolset) grants nothing and records nothing.
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    expect((await submitConsent(server, form, { api_key: TEST_KEY, toolsets: 'everything' })).status).toBe(400);
    expect(events()).toHaveLength(before + 1);
  });

  it('an unknown toolset is refused on the page, and nothing is granted', async () => {
    const client = await registerClient(server);
    const form = await openConsent(authorizeUrl(server, client.client_id, pkce().challenge));
    const r = await submitConsent(server, form, { api_key: TEST_KEY, toolsets: 'everything' });
    expect(r.status).toBe(400);
    expect(r.location).toBeNull();
  });
});
