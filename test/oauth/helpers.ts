import { createHash, randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TEST_KEY, type TestServer } from '../helpers.js';

/** OAuth client steps over plain fetch, as a chat-assistant client would make them. */

export const REDIRECT = 'http://127.0.0.1:8765/callback';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(server: TestServer, metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test Assistant', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function registerClient(server: TestServer, metadata: Record<string, unknown> = {}): Promise<{ client_id: string; client_secret?: string }> {
  const r = await register(server, metadata);
  if (r.status !== 201) throw new Error(`registration failed: ${JSON.stringify(r.body)}`);
  return r.body;
}

export function authorizeUrl(server: TestServer, clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    resource: `${server.url}/mcp`,
    ...extra,
  });
  return `${server.url}/authorize?${q}`;
}

export interface ConsentForm {
  status: number;
  html: string;
  cookie: string;
  formToken: string;
}

/** GET /authorize: the consent page, its browser cookie and its signed form token. */
export async function openConsent(url: string): Promise<ConsentForm> {
  const res = await fetch(url, { redirect: 'manual' });
  const html = await res.text();
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const formToken = /name="form_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { status: res.status, html, cookie, formToken };
}

export async function submitConsent(server: TestServer, form: { cookie: string; formToken: string }, fields: Record<string, string>) {
  const res = await fetch(`${server.url}/oauth/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(form.cookie ? { cookie: form.cookie } : {}) },
    body: new URLSearchParams({ form_token: form.formToken, decision: 'allow', ...fields }),
  });
  return { status: res.status, location: res.headers.get('location'), html: await res.text() };
}

export async function token(server: TestServer, params: Record<string, string>) {
  const res = await fetch(`${server.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Consent with `key` and return the code from the redirect. */
export async function authorizationCode(server: TestServer, clientId: string, challenge: string, key = TEST_KEY): Promise<string> {
  const form = await openConsent(authorizeUrl(server, clientId, challenge));
  const r = await submitConsent(server, form, { api_key: key });
  const code = r.location ? new URL(r.location).searchParams.get('code') : null;
  if (!code) throw new Error(`no code: ${r.status} ${r.html.slice(0, 300)}`);
  return code;
}

/** The whole flow: register, consent with `key`, exchange the code. */
export async function signIn(server: TestServer, key = TEST_KEY) {
  const client = await registerClient(server);
  const { verifier, challenge } = pkce();
  const code = await authorizationCode(server, client.client_id, challenge, key);
  const t = await token(server, { grant_type: 'authorization_code', code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT });
  if (t.status !== 200) throw new Error(`token failed: ${JSON.stringify(t.body)}`);
  return { clientId: client.client_id, tokens: t.body as { access_token: string; refresh_token: string; expires_in: number; token_type: string } };
}

/** An MCP client that authenticates with a bearer token only. */
export async function bearerClient(server: TestServer, accessToken: string, path = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'oauth-test-client', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }),
  );
  return client;
}

/** A raw MCP POST, to see HTTP status and headers. */
export function mcpPost(server: TestServer, headers: Record<string, string>, path = '/mcp') {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}
