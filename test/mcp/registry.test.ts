import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configuredTools } from '../../src/server.js';
import { defaultTools, draftTools, manageTools, triageTools } from '../../src/tools/index.js';
import { TOOLSETS } from '../../src/tools/define.js';
import { MCP_NAME, SERVER_VERSION } from '../../src/version.js';
import { startTestServer, type TestServer } from '../helpers.js';
import { modernRpc } from '../transports.js';

/**
 * server.json for the official MCP Registry and the Server Card, validated against the schemas
 * their owners publish (vendored under test/fixtures/registry, see its README), and checked
 * against what the server really is.
 */
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as any;
const serverJson = read('../../server.json');
const pkg = read('../../package.json');

describe('server.json', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(read('../fixtures/registry/server.schema.2025-12-11.json'));

  it("validates against the registry's schema, and a broken one does not", () => {
    expect(validate(serverJson), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...serverJson, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...serverJson, name: 'no-slash' })).toBe(false);
    expect(validate({ ...serverJson, packages: [{ ...serverJson.packages[0], version: 'latest' }] })).toBe(false);
  });

  it('names the package as package.json does (mcpName, name, version)', () => {
    expect(serverJson.name).toBe(pkg.mcpName);
    expect(serverJson.name).toBe(MCP_NAME);
    expect(serverJson.$schema).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(serverJson.version).toBe(pkg.version);
    const [npm] = serverJson.packages;
    expect([npm.registryType, npm.identifier, npm.version]).toEqual(['npm', pkg.name, pkg.version]);
    expect(npm.packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
  });

  it('lists the environment the stdio server reads, and those variables do what they say', () => {
    const names = serverJson.packages[0].environmentVariables.map((v: { name: string }) => v.name);
    expect(names).toEqual(['OUTREACH_API_KEY', 'OUTREACH_DB', 'OUTREACH_TOOLSETS', 'OUTREACH_READONLY', 'OUTREACH_TOOLS']);
    // Every toolset a client may add is offered, and nothing else.
    const toolsets = serverJson.packages[0].environmentVariables.find((v: { name: string }) => v.name === 'OUTREACH_TOOLSETS');
    expect(toolsets.choices).toEqual([...TOOLSETS]);
    const settings = { config: {} };
    expect(configuredTools(settings, { OUTREACH_TOOLSETS: 'manage' }).map((t) => t.name)).toEqual(
      [...defaultTools, ...manageTools, ...draftTools].map((t) => t.name),
    );
    expect(configuredTools(settings, { OUTREACH_TOOLSETS: 'drafts' }).map((t) => t.name)).toEqual([...defaultTools, ...draftTools].map((t) => t.name));
    expect(configuredTools(settings, { OUTREACH_READONLY: '1' }).every((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(configuredTools(settings, { OUTREACH_TOOLS: 'get_credits' }).map((t) => t.name)).toEqual(['get_credits']);
  });
});

describe('the Server Card', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  // The schema document only defines types; a card is a #/$defs/ServerCard (as its own repo validates).
  ajv.addSchema(read('../fixtures/registry/server-card.schema.json'), 'server-card.schema.json');
  const validate = ajv.getSchema('server-card.schema.json#/$defs/ServerCard')!;

  it('is served at the well-known path and at /mcp/server-card, without a key, and validates', async () => {
    const res = await fetch(`${server.url}/.well-known/mcp/server-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as any;
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...card, $schema: 'https://example.com/card.json' })).toBe(false);
    expect(await (await fetch(`${server.url}/mcp/server-card`)).json()).toEqual(card);
  });

  it('describes this server as the registry and discovery do', async () => {
    const card = (await (await fetch(`${server.url}/.well-known/mcp/server-card.json`)).json()) as any;
    expect([card.name, card.version, card.description]).toEqual([serverJson.name, SERVER_VERSION, serverJson.description]);
    const [remote] = card.remotes;
    expect(remote).toMatchObject({ type: 'streamable-http', url: `${server.url}/mcp` });
    expect(remote.supportedProtocolVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));

    // What server/discover says, the card says too.
    const found = (
      await modernRpc(
        `${server.url}/mcp`,
        'server/discover',
        {},
        {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      )
    ).result;
    for (const v of found.supportedVersions) expect(remote.supportedProtocolVersions).toContain(v);
    const primitives = card._meta['io.github.outreach-mcp/primitives'];
    expect(primitives.extensions.sort()).toEqual(Object.keys(found.capabilities.extensions).sort());
    // Generated from the registry: every tool of the default listing, the toolsets (manage includes drafts), the prompts and views.
    expect(primitives.tools.map((t: { name: string }) => t.name)).toEqual(defaultTools.map((t) => t.name));
    expect(primitives.toolsets.manage.tools).toEqual([...manageTools, ...draftTools].map((t) => t.name));
    expect(primitives.toolsets.triage.tools).toEqual(triageTools.map((t) => t.name));
    expect(primitives.toolsets.drafts.tools).toEqual(draftTools.map((t) => t.name));
    expect(primitives.tools.find((t: { name: string }) => t.name === 'send_message')).toMatchObject({ confirms: true });
    expect(primitives.tools.find((t: { name: string }) => t.name === 'create_lookalike_campaign')).toMatchObject({ task: true });
    expect(primitives.prompts.map((p: { name: string }) => p.name)).toEqual(['start_outreach', 'personalize_drafts', 'triage_replies']);
    // The views of the default listing; the drafts view comes with the drafts toolset.
    expect(primitives.resources).toHaveLength(4);
  });
});
