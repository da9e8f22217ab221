import type { Request } from 'express';
import type { Environment } from '../core/context.js';
import { KEY_PREFIX, keyEnvFor } from '../core/auth/keys.js';
import { effectOf, routeOf } from '../docs/tools.js';
import { baseUrl } from './request.js';
import { oauthUrls } from './oauth/router.js';
import { type Tool, TOOLSETS } from '../tools/define.js';
import { toolsetAdditions } from '../tools/select.js';
import { SERVER_NAME, SERVER_VERSION } from '../version.js';

/** The key-less overview served at GET / and /.well-known/mcp.json; `tools` is what MCP serves. */
export function overview(req: Request, env: Environment, tools: readonly Tool[], permitted: readonly Tool[] = tools) {
  const base = baseUrl(req);
  return {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    description: 'Self-hosted outreach automation for one LinkedIn workspace, MCP-first, with a REST facade.',
    environment: env,
    mcpUrl: `${base}/mcp`,
    restBase: `${base}/public/v1`,
    auth: {
      methods: ['api_key', 'oauth'],
      apiKey: { header: 'X-API-Key', prefix: KEY_PREFIX[keyEnvFor(env)] },
      oauth: { ...oauthUrls(base), appliesTo: 'mcp' },
    },
    docs: {
      openapi: `${base}/public/v1/openapi.json`,
      reference: `${base}/public/v1/docs`,
      llms: `${base}/llms.txt`,
      serverCard: `${base}/.well-known/mcp/server-card.json`,
    },
    tools: tools.map((t) => t.name),
    /** Tools an MCP client adds with `?toolsets=NAME` on the MCP URL, per toolset. */
    toolsets: toolsetAdditions(tools, permitted),
  };
}

/** The same overview as text, written for a model. */
export function llmsTxt(req: Request, env: Environment, tools: readonly Tool[], permitted: readonly Tool[] = tools): string {
  const o = overview(req, env, tools, permitted);
  const extra = permitted.filter((t) => t.toolset !== undefined && !tools.includes(t));
  const lines = [
    `# ${o.name} ${o.version}`,
    '',
    `> ${o.description}`,
    '',
    `- MCP (streamable HTTP; protocol 2026-07-28, stateless, and the 2025 revisions): ${o.mcpUrl}`,
    `- MCP Server Card: ${o.docs.serverCard}`,
    `- REST base: ${o.restBase}`,
    `- Environment: ${o.environment}; API keys start with ${o.auth.apiKey.prefix}`,
    `- Auth, REST: the API key in the ${o.auth.apiKey.header} header.`,
    `- Auth, MCP: the ${o.auth.apiKey.header} header, or OAuth 2.1 (the user pastes the key on the consent page): ${o.auth.oauth.protectedResourceMetadata}`,
    `- OpenAPI 3.1: ${o.docs.openapi} (reference: ${o.docs.reference})`,
    `- Fewer tools: add ?readonly=1 and/or ?tools=name,name to the MCP URL.`,
    `- More tools: add ?toolsets=manage to the MCP URL for the manage toolset (campaigns, agents, accounts, drafts), ?toolsets=drafts for the draft review tools alone, or ?toolsets=triage for the inbox and reply triage (e.g. ?toolsets=manage,triage).`,
    '',
    '## Tools',
    '',
    ...tools.map((t) => `- ${t.name} (${routeOf(t)}) [${effectOf(t)}]: ${t.description}`),
    '',
  ];
  for (const name of TOOLSETS) {
    const own = extra.filter((t) => t.toolset === name);
    if (own.length === 0) continue;
    const title = `${name[0]?.toUpperCase()}${name.slice(1)}`;
    const also = name === 'drafts' ? ' (also in ?toolsets=manage)' : '';
    lines.push(`## ${title} toolset (?toolsets=${name})${also}`, '', ...own.map((t) => `- ${t.name} (${routeOf(t)}) [${effectOf(t)}]: ${t.description}`), '');
  }
  return lines.join('\n');
}
