import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTools as tools } from '../../src/tools/index.js';
import { startTestServer, type TestServer } from '../helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('generated discovery documents', () => {
  it('/.well-known/mcp.json and GET / list every tool from the registry, key-less', async () => {
    for (const path of ['/.well-known/mcp.json', '/']) {
      const o = (await (await fetch(`${server.url}${path}`)).json()) as any;
      expect(o.tools).toEqual(tools.map((t) => t.name));
      expect(o.docs.openapi).toBe(`${server.url}/public/v1/openapi.json`);
      expect(o.auth.methods).toContain('oauth');
    }
  });

  it('llms.txt names every tool with its route and effect, and both ways to authenticate', async () => {
    const text = await (await fetch(`${server.url}/llms.txt`)).text();
    for (const t of tools) expect(text).toContain(`- ${t.name} (${t.http.method} /public/v1${t.http.path.replace(/:(\w+)/g, '{$1}')}) [`);
    expect(text).toContain('read-only');
    expect(text).toContain('X-API-Key');
    expect(text).toContain(`${server.url}/.well-known/oauth-protected-resource/mcp`);
    expect(text).toContain(`${server.url}/public/v1/openapi.json`);
  });
});
