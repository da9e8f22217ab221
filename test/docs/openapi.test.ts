import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_STATUS } from '../../src/core/errors.js';
import { openApiDocument, openApiPath } from '../../src/rest/openapi.js';
import { defineTool } from '../../src/tools/define.js';
import { tools } from '../../src/tools/index.js';
import { CampaignId } from '../../src/tools/params.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { requireTool } from '../optional.js';

/** A write tool with a body, a path parameter, idempotency and its own errors, to cover every branch. */
const addThing = defineTool({
  name: 'add_thing',
  title: 'Add a thing',
  description: 'Adds a thing to a campaign; exists only to exercise the document generator. Costs 1 credit.',
  input: z.strictObject({ campaignId: CampaignId, name: z.string().max(10).describe('The name.'), note: z.string().optional() }),
  output: z.object({ id: z.string(), note: z.string().nullable() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  http: { method: 'POST', path: '/campaigns/:campaignId/things' },
  idempotent: true,
  errors: ['insufficient_credits', 'conflict'],
  handler: () => ({ id: 'thing_1', note: null }),
});

const ORIGIN = 'http://127.0.0.1:3000';
const doc = openApiDocument([...tools, addThing], ORIGIN) as any;

/** @readme/openapi-parser when installed (a dev dependency), else null and the validation test skips. */
async function loadValidator(): Promise<((api: unknown) => Promise<{ valid: boolean; errors?: unknown[] }>) | null> {
  try {
    const path = createRequire(import.meta.url).resolve('@readme/openapi-parser');
    const mod = (await import(pathToFileURL(path).href)) as any;
    return mod.validate ?? mod.default?.validate ?? null;
  } catch {
    return null;
  }
}
const validate = await loadValidator();

describe('OpenAPI 3.1 document', () => {
  it('has one operation per tool, named after the tool, at the tool route', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: `${ORIGIN}/public/v1` }]);
    for (const t of [...tools, addThing]) {
      const op = doc.paths[openApiPath(t.http.path)]?.[t.http.method.toLowerCase()];
      expect(op, `${t.name}`).toBeDefined();
      expect(op.operationId).toBe(t.name);
      expect(op.summary).toBe(t.title);
    }
    const ops = Object.values(doc.paths).flatMap((p: any) => Object.values(p));
    expect(ops).toHaveLength(tools.length + 1);
  });

  it('GET routes take path and query parameters from the tool input', () => {
    const list = doc.paths['/campaigns'].get;
    expect(list.requestBody).toBeUndefined();
    const byName = Object.fromEntries(list.parameters.map((p: any) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(['cursor', 'limit', 'status']);
    expect(byName.limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } });
    const get = doc.paths['/campaigns/{campaignId}'].get;
    expect(get.parameters).toEqual([
      expect.objectContaining({ name: 'campaignId', in: 'path', required: true, schema: expect.objectContaining({ pattern: expect.any(String) }) }),
    ]);
  });

  it('other routes take a strict JSON body without the path parameters, and Idempotency-Key where the tool is idempotent', () => {
    const op = doc.paths['/campaigns/{campaignId}/things'].post;
    const body = op.requestBody.content['application/json'].schema;
    expect(op.requestBody.required).toBe(true);
    expect(Object.keys(body.properties)).toEqual(['name', 'note']);
    expect(body.required).toEqual(['name']);
    expect(body.additionalProperties).toBe(false);
    expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
    expect(doc.components.parameters['Idempotency-Key']).toMatchObject({ in: 'header', required: false, schema: { type: 'string', maxLength: 128 } });
    for (const t of tools.filter((x) => !x.idempotent)) {
      const params = doc.paths[openApiPath(t.http.path)][t.http.method.toLowerCase()].parameters ?? [];
      expect(params).not.toContainEqual({ $ref: '#/components/parameters/Idempotency-Key' });
    }
  });

  it('the 200 response is the tool output schema, with the rate-limit headers', () => {
    const ok = doc.paths['/campaigns/{campaignId}/things'].post.responses['200'];
    expect(ok.content['application/json'].schema.properties.note).toEqual({ type: ['string', 'null'] });
    expect(Object.keys(ok.headers)).toEqual(['RateLimit', 'RateLimit-Policy']);
  });

  it('lists each error code under its status from the code table, with the spec error body', () => {
    const responses = doc.paths['/campaigns/{campaignId}/things'].post.responses;
    const codesAt = (status: string) => responses[status].content['application/json'].schema.allOf[1].properties.error.properties.code.enum;
    expect(Object.keys(responses)).toEqual(['200', '400', '401', '403', '404', '409', '413', '429', '503']);
    expect(codesAt('401')).toEqual(['unauthorized', 'key_expired']);
    expect(codesAt('403')).toEqual(['plan_required', 'insufficient_credits', 'forbidden']);
    expect(codesAt('409')).toEqual(['conflict']);
    expect(codesAt('413')).toEqual(['validation_error']);
    for (const [status, r] of Object.entries<any>(responses)) {
      if (status === '200') continue;
      for (const code of r.content['application/json'].schema.allOf[1].properties.error.properties.code.enum) {
        if (status !== '413') expect(ERROR_STATUS[code as keyof typeof ERROR_STATUS]).toBe(Number(status));
      }
      expect(r.content['application/json'].schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
    }
    expect(responses['429'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/Retry-After' });
    // A GET without path parameters cannot give not_found or 413.
    expect(Object.keys(doc.paths['/credits'].get.responses)).toEqual(['200', '400', '401', '403', '429', '503']);
    expect(doc.components.schemas.Error.properties.error.required).toEqual(['code', 'message', 'details']);
  });

  it("declares each route's own errors, as the contract lists them and the routes answer them", () => {
    const codes = (path: string, method: string) => {
      const responses = doc.paths[path][method].responses;
      return Object.entries<any>(responses)
        .filter(([status]) => status !== '200')
        .flatMap(([, r]) => r.content['application/json'].schema.allOf[1].properties.error.properties.code.enum as string[]);
    };
    const expected: [string, string, string[]][] = [
      ['/campaigns/{campaignId}/start', 'post', ['account_disconnected', 'conflict', 'not_found']],
      ['/campaigns/{campaignId}/pause', 'post', ['conflict', 'not_found']],
      ['/campaigns/{campaignId}/leads', 'post', ['insufficient_credits', 'conflict', 'not_found']],
      ['/campaigns/{campaignId}/leads/batch', 'post', ['conflict', 'not_found']],
      ['/campaigns/{campaignId}/leads/batch-update', 'post', ['conflict', 'not_found']],
      ['/campaigns/{campaignId}/leads/batch-delete', 'post', ['conflict', 'not_found']],
      ['/inbox/messages', 'post', ['not_found', 'conflict', 'account_disconnected', 'network_daily_quota', 'send_failed']],
      ['/network/profiles/lookup', 'post', ['not_found', 'account_disconnected', 'network_daily_quota']],
      ['/network/search', 'post', ['not_found', 'sales_nav_required', 'account_disconnected', 'network_daily_quota']],
    ];
    for (const [path, method, own] of expected) expect(codes(path, method), `${method} ${path}`).toEqual(expect.arrayContaining(own));
    // A route that takes no Idempotency-Key and has no state to conflict with declares no 409.
    expect(codes('/credits', 'get')).not.toContain('conflict');
  });

  it('authenticates with the X-API-Key header', () => {
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    expect(doc.components.securitySchemes.ApiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('inlines every schema but recursive ones: no $defs, whose local refs would point at the document root', () => {
    expect(JSON.stringify(doc)).not.toContain('$defs');
    // An agent's steps nest, so their shape is a named component that refers to itself.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    for (const name of refs) expect(doc.components.schemas[name!], name).toBeDefined();
  });

  it.skipIf(!requireTool('@readme/openapi-parser', validate !== null))('validates with @readme/openapi-parser, which rejects a broken document', async () => {
    const result = await validate!(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const broken = structuredClone(doc);
    delete broken.paths['/credits'].get.responses;
    broken.paths['/campaigns/{campaignId}'].get.parameters[0].required = false;
    const bad = await validate!(broken);
    expect(bad.valid).toBe(false);
  });
});

describe('served documents', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('GET /public/v1/openapi.json needs no key and describes this server', async () => {
    const res = await fetch(`${server.url}/public/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument(tools, server.url))));
  });

  it('GET /public/v1/docs is a plain HTML reference with every operation, no script', async () => {
    const res = await fetch(`${server.url}/public/v1/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    // No script and no asset from elsewhere (the machine may be offline); URLs in prose are fine.
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(?:src|href|action)\s*=\s*["']?(?:https?:)?\/\/(?!127\.0\.0\.1)/i);
    expect(html).not.toMatch(/@import|url\(\s*["']?(?:https?:)?\/\//i);
    for (const t of tools) {
      expect(html).toContain(`id="${t.name}"`);
      expect(html).toContain(`href="#${t.name}"`);
    }
    expect(html).toContain('<code>GET /campaigns/{campaignId}</code>');
    expect(html).toMatch(/<th scope="row"><code>campaigns\[\]\.stats\.replyRate<\/code><\/th>/);
  });
});
