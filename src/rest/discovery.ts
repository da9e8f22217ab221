import type { Request } from 'express';
import type { Environment } from '../core/context.js';
import type { Tool } from '../tools/define.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';
import { baseUrl } from '../mcp/http.js';

/** The key-less overview served at GET / and /.well-known/mcp.json. */
export function overview(req: Request, env: Environment, tools: readonly Tool[]) {
  const base = baseUrl(req);
  return {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    description: 'Self-hosted outreach automation for one LinkedIn workspace, MCP-first, with a REST facade.',
    environment: env,
    mcpUrl: `${base}/mcp`,
    restBase: `${base}/public/v1`,
    auth: {
      methods: ['api_key'],
      apiKey: { header: 'X-API-Key', prefix: env === 'production' ? 'sk_live_' : 'sk_test_' },
    },
    tools: tools.map((t) => t.name),
  };
}

/** The same overview as text, written for a model. */
export function llmsTxt(req: Request, env: Environment, tools: readonly Tool[]): string {
  const o = overview(req, env, tools);
  const lines = [
    `# ${o.name} ${o.version}`,
    '',
    `> ${o.description}`,
    '',
    `- MCP (streamable HTTP, stateless): ${o.mcpUrl}`,
    `- REST base: ${o.restBase}`,
    `- Environment: ${o.environment}; keys start with ${o.auth.apiKey.prefix}`,
    `- Auth: send the API key in the ${o.auth.apiKey.header} header (REST and MCP).`,
    '',
    '## Tools',
    '',
    ...tools.map((t) => `- ${t.name} (${t.http.method} /public/v1${t.http.path.replace(/:(\w+)/g, '{$1}')}): ${t.description}`),
    '',
  ];
  return lines.join('\n');
}
