import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { configuredTools } from '../../src/server.js';

/**
 * What the official MCP Registry checks when server.json is published, and what npm and npx need
 * from package.json, so that `npx -y outreach-mcp` and a registry entry work as published.
 *
 * The registry's rules, as its publish step applies them (github.com/modelcontextprotocol/registry,
 * internal/validators: validators.go, utils.go, registries/npm.go; docs/reference/server-json/
 * official-registry-requirements.md): the schema of the current version, a `namespace/name`
 * name, specific versions (not `latest`, not a range), https-only URLs with no localhost for
 * remotes, remote URL variables that are defined, a stdio transport without a URL, npm packages
 * from https://registry.npmjs.org only, `_meta` only under the publisher-provided key (at most
 * 4 KB), and the npm package's `mcpName` equal to the server's name (ownership).
 */
const read = (path: string) => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as any;
const serverJson = read('../../server.json');
const pkg = read('../../package.json');
const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validateSchema = ajv.compile(read('../fixtures/registry/server.schema.2025-12-11.json'));

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]\/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/;
const V = String.raw`v?\d+(?:\.\d+){0,3}(?:-[0-9A-Za-z.-]+)?`;
const RANGES = [
  new RegExp(String.raw`^\s*(?:\^|~|>=|<=|>|<|=)\s*${V}\s*$`),
  new RegExp(String.raw`^\s*${V}\s-\s*${V}\s*$`),
  new RegExp(String.raw`^\s*(?:${V}\s*)(?:\|\|\s*${V}\s*)+$`),
];
const WILDCARD = /^\s*(?:v?\d+|x|X|\*)(?:\.(?:\d+|x|X|\*)){1,2}(?:-[0-9A-Za-z.-]+)?\s*$/;
const looksLikeRange = (v: string) => RANGES.some((r) => r.test(v)) || (WILDCARD.test(v) && /[xX*]/.test(v));

function versionProblem(where: string, version: unknown): string[] {
  if (version === 'latest') return [`${where}: "latest" is reserved`];
  if (typeof version === 'string' && looksLikeRange(version)) return [`${where}: "${version}" is a range, not a version`];
  return [];
}

/** The registry's URL checks, with {variables} replaced by placeholders as it does. */
function parseTemplated(url: string): URL | null {
  const filled = url
    .replaceAll('{host}', 'example.com')
    .replaceAll('{port}', '8080')
    .replace(/:(\{[^}]+\})(\/|$)/g, ':8080$2')
    .replace(/\{[^}]+\}/g, 'placeholder');
  try {
    const u = new URL(filled);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host !== '' ? u : null;
  } catch {
    return null;
  }
}

/** Every reason the registry would refuse this server.json, published with this package.json. */
function publishProblems(server: any, npmPackage: any): string[] {
  const problems: string[] = [];
  if (server.$schema !== SCHEMA_URL) problems.push(`$schema: not the current schema (${SCHEMA_URL})`);
  if (!validateSchema(server)) problems.push(...(validateSchema.errors ?? []).map((e) => `schema: ${e.instancePath} ${e.message}`));
  if (typeof server.name !== 'string' || !NAME.test(server.name)) problems.push(`name: "${server.name}" is not namespace/name`);
  problems.push(...versionProblem('version', server.version));
  if (typeof server.title === 'string' && server.title.trim() === '') problems.push('title: only whitespace');
  if (server.websiteUrl !== undefined && !/^https:\/\//.test(server.websiteUrl)) problems.push('websiteUrl: must be an absolute https URL');
  for (const icon of server.icons ?? []) if (!/^https:\/\//.test(icon.src)) problems.push(`icons: ${icon.src} is not https`);
  const meta = Object.keys(server._meta ?? {});
  for (const key of meta) if (key !== 'io.modelcontextprotocol.registry/publisher-provided') problems.push(`_meta: "${key}" would be dropped`);
  const provided = server._meta?.['io.modelcontextprotocol.registry/publisher-provided'];
  if (provided !== undefined && JSON.stringify(provided).length > 4096) problems.push('_meta: publisher-provided is over 4 KB');

  (server.packages ?? []).forEach((p: any, i: number) => {
    const at = `packages[${i}]`;
    if (/ /.test(p.identifier ?? '')) problems.push(`${at}.identifier: has spaces`);
    problems.push(...versionProblem(`${at}.version`, p.version));
    for (const arg of [...(p.runtimeArguments ?? []), ...(p.packageArguments ?? [])]) {
      if (arg.type === 'named' && (!arg.name || /[<> $]/.test(arg.name))) problems.push(`${at}: named argument "${arg.name}" is not a flag name`);
    }
    if (p.transport?.type === 'stdio' && p.transport.url) problems.push(`${at}.transport: stdio has no url`);
    if (p.registryType === 'npm') {
      if ((p.registryBaseUrl ?? 'https://registry.npmjs.org') !== 'https://registry.npmjs.org')
        problems.push(`${at}.registryBaseUrl: npm packages come from https://registry.npmjs.org only`);
      // Ownership: the registry reads mcpName from the published package.json.
      if (p.identifier !== npmPackage.name) problems.push(`${at}.identifier: "${p.identifier}" is not this package (${npmPackage.name})`);
      if (p.version !== npmPackage.version) problems.push(`${at}.version: ${p.version} is not the package's ${npmPackage.version}`);
      if (npmPackage.mcpName !== server.name) problems.push(`${at}: package.json's mcpName "${npmPackage.mcpName}" is not "${server.name}"`);
      if (npmPackage.private) problems.push(`${at}: package.json is private, so npm will not publish it`);
    }
  });

  (server.remotes ?? []).forEach((r: any, i: number) => {
    const at = `remotes[${i}]`;
    if (r.type !== 'streamable-http' && r.type !== 'sse') return problems.push(`${at}.type: ${r.type} is not a remote transport`);
    const u = parseTemplated(r.url ?? '');
    if (u?.protocol !== 'https:' || ['localhost', '127.0.0.1'].includes(u.hostname) || u.hostname.endsWith('.localhost')) {
      problems.push(`${at}.url: ${r.url} is not an https URL off localhost`);
    }
    const defined = Object.keys(r.variables ?? {});
    for (const [, v] of (r.url ?? '').matchAll(/\{([^}]+)\}/g)) if (!defined.includes(v)) problems.push(`${at}.url: {${v}} is not defined`);
  });
  return problems;
}

describe('server.json, as the MCP Registry publishes it', () => {
  it('has nothing the registry would refuse', () => {
    expect(publishProblems(serverJson, pkg)).toEqual([]);
  });

  it('is the npm package run by npx over stdio, with no remote (a self-hosted server has no fixed address)', () => {
    expect(serverJson.remotes).toBeUndefined();
    expect(serverJson.packages).toHaveLength(1);
    const [npm] = serverJson.packages;
    expect(npm).toMatchObject({ registryType: 'npm', registryBaseUrl: 'https://registry.npmjs.org', identifier: 'outreach-mcp', runtimeHint: 'npx' });
    expect(npm.transport).toEqual({ type: 'stdio' });
    // npx -y outreach-mcp mcp: the key and the database are what a first run needs.
    expect(npm.packageArguments).toEqual([{ type: 'positional', value: 'mcp' }]);
    const required = npm.environmentVariables.filter((v: { isRequired?: boolean }) => v.isRequired).map((v: { name: string }) => v.name);
    expect(required).toEqual(['OUTREACH_API_KEY', 'OUTREACH_DB']);
    expect(npm.environmentVariables.find((v: { name: string }) => v.name === 'OUTREACH_API_KEY').isSecret).toBe(true);
  });

  it('declares its variables in forms the server reads (a boolean as "true"/"false", choices the server knows)', () => {
    const vars = Object.fromEntries(serverJson.packages[0].environmentVariables.map((v: { name: string }) => [v.name, v]));
    expect(vars.OUTREACH_READONLY.format).toBe('boolean');
    const settings = { config: {} };
    expect(configuredTools(settings, { OUTREACH_READONLY: 'true' }).every((t) => t.annotations.readOnlyHint)).toBe(true);
    expect(configuredTools(settings, { OUTREACH_READONLY: 'false' }).length).toBe(configuredTools(settings, {}).length);
    for (const choice of vars.OUTREACH_TOOLSETS.choices) expect(() => configuredTools(settings, { OUTREACH_TOOLSETS: choice }), choice).not.toThrow();
    expect(vars.OUTREACH_DB.format).toBe('filepath');
  });

  it('the checks catch what the registry refuses', () => {
    const broken = (change: (s: any) => void, p = pkg) => {
      const copy = structuredClone(serverJson);
      change(copy);
      return publishProblems(copy, p);
    };
    const has = (pattern: RegExp) => expect.arrayContaining([expect.stringMatching(pattern)]);
    // The remote this file used to carry: http, and a template the registry fills with a placeholder.
    const remote = { type: 'streamable-http', url: 'http://{host}/mcp', variables: { host: { description: 'host and port' } } };
    expect(
      broken((s) => {
        s.remotes = [remote];
      }),
    ).toEqual([expect.stringMatching(/^remotes\[0\]\.url: .* not an https URL/)]);
    expect(
      broken((s) => {
        s.remotes = [{ ...remote, url: 'https://{host}/mcp' }];
      }),
    ).toEqual([]);
    expect(
      broken((s) => {
        s.remotes = [{ type: 'streamable-http', url: 'https://localhost/mcp' }];
      }),
    ).toEqual(has(/https URL off localhost/));
    expect(
      broken((s) => {
        s.remotes = [{ type: 'streamable-http', url: 'https://{tenant}.example.com/mcp' }];
      }),
    ).toEqual([expect.stringContaining('{tenant} is not defined')]);
    expect(
      broken((s) => {
        s.packages[0].version = 'latest';
      }),
    ).toEqual(has(/reserved/));
    for (const range of ['^0.1.0', '~0.1.0', '>=0.1.0', '0.x', '0.1.*', '0.1 - 0.2', '0.1 || 0.2']) {
      expect(
        broken((s) => {
          s.version = range;
        }),
        range,
      ).toEqual(has(/is a range/));
    }
    expect(
      broken((s) => {
        s.packages[0].registryBaseUrl = 'https://npm.example.com';
      }),
    ).toEqual(has(/registryBaseUrl/));
    expect(
      broken((s) => {
        s.$schema = 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json';
      }),
    ).toEqual(has(/\$schema: not the current/));
    expect(
      broken((s) => {
        s.name = 'outreach-mcp';
      }),
    ).toEqual(has(/^name: /));
    expect(
      broken((s) => {
        s.packages[0].transport = { type: 'stdio', url: 'https://example.com/mcp' };
      }),
    ).toEqual(has(/stdio has no url/));
    expect(
      broken((s) => {
        s._meta = { 'com.example/other': {} };
      }),
    ).toEqual(has(/_meta: .* dropped/));
    expect(broken(() => {}, { ...pkg, mcpName: 'io.github.someone-else/outreach-mcp' })).toEqual([expect.stringContaining('mcpName')]);
    expect(broken(() => {}, { ...pkg, private: true })).toEqual([expect.stringContaining('private')]);
    expect(broken(() => {}, { ...pkg, version: '0.2.0' })).toEqual([expect.stringContaining('version')]);
  });
});

describe("the README's npx configs", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('## Run it with npx');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const configs = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as any);

  it('come first, before the clone-and-run Quickstart', () => {
    expect(start).toBeGreaterThan(0);
    expect(start).toBeLessThan(readme.indexOf('## Quickstart'));
    for (const client of ['Claude Desktop', 'Cursor', 'VS Code']) expect(section).toContain(`**${client}**`);
  });

  it('run what server.json publishes: npx, the package, its arguments, and every required variable', () => {
    const [npmPackage] = serverJson.packages;
    const required = npmPackage.environmentVariables.filter((v: { isRequired?: boolean }) => v.isRequired).map((v: { name: string }) => v.name);
    const servers = configs.map((c) => (c.mcpServers ?? c.servers).outreach);
    expect(servers).toHaveLength(2);
    for (const server of servers) {
      expect(server.command).toBe('npx');
      expect(server.args).toEqual(['-y', npmPackage.identifier, ...npmPackage.packageArguments.map((a: { value: string }) => a.value)]);
      expect(Object.keys(server.env).sort()).toEqual([...required].sort());
    }
    // The first-run commands use the same package and make the database the configs name.
    expect(section).toContain(`npx -y ${pkg.name} keys create --env test --db `);
  });
});

describe('package.json, as npm publishes it and npx runs it', () => {
  it('can be published, under the name and mcpName server.json gives', () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.name).toBe('outreach-mcp');
    expect(pkg.mcpName).toBe(serverJson.name);
    expect(pkg.version).toBe(serverJson.version);
    expect(pkg.files).toEqual(expect.arrayContaining(['bin/', 'dist/', 'src/db/migrations/']));
  });

  it('gives npx one command to run: `outreach` and `outreach-mcp` are the same script', () => {
    expect(pkg.bin).toEqual({ outreach: 'bin/outreach.js', 'outreach-mcp': 'bin/outreach.js' });
    // npx runs the bin named like the package, or the only script when every bin is the same one.
    expect(new Set(Object.values(pkg.bin)).size === 1 || pkg.name in pkg.bin).toBe(true);
    expect(readFileSync(new URL('../../bin/outreach.js', import.meta.url), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});
