import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { KEY_PREFIX, keyEnvFor } from '../core/auth/keys.js';
import type { Environment } from '../core/context.js';
import type { Tool } from '../tools/define.js';
import { toolsetAdditions } from '../tools/select.js';
import { MCP_NAME, SERVER_DESCRIPTION, SERVER_VERSION } from '../version.js';
import { APPS_EXTENSION, offeredViews } from './apps.js';
import { PROMPTS } from '../tools/prompts/index.js';
import { TASKS_EXTENSION } from './tasks.js';

/** The stateless revision this server speaks beside the 2025 ones (the SDK does not export its list). */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';

/** Where the card's extension data lives: our own namespace, as `_meta` keys must be. */
const META_KEY = `${MCP_NAME.split('/')[0]}/primitives`;

/**
 * The Server Card (SEP-2127): what a client needs to find and connect to this server before
 * any MCP exchange, generated from the tool registry like the OpenAPI document. The card's
 * own fields cover identity and the remote endpoint; what a connection offers (tools by
 * toolset, prompts, views, extensions) rides in `_meta` under our namespace, since the card
 * format leaves primitives to the runtime listings, which stay authoritative.
 */
export function serverCard(base: string, env: Environment, tools: readonly Tool[], permitted: readonly Tool[] = tools) {
  const offered = new Map(tools.map((t) => [t.name, t]));
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: MCP_NAME,
    version: SERVER_VERSION,
    title: 'Outreach MCP',
    description: SERVER_DESCRIPTION,
    websiteUrl: `${base}/`,
    remotes: [
      {
        type: 'streamable-http',
        url: `${base}/mcp`,
        headers: [
          {
            name: 'X-API-Key',
            description: `The workspace API key (${KEY_PREFIX[keyEnvFor(env)]}…). Without it, sign in with OAuth: the server's 401 names its metadata.`,
            isRequired: false,
            isSecret: true,
          },
        ],
        supportedProtocolVersions: [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS],
      },
    ],
    _meta: {
      [META_KEY]: {
        tools: tools.map((t) => ({
          name: t.name,
          title: t.title,
          annotations: t.annotations,
          ...(t.task ? { task: true } : {}),
          ...(t.confirm ? { confirms: true } : {}),
        })),
        toolsets: Object.fromEntries(
          Object.entries(toolsetAdditions(tools, permitted)).map(([name, names]) => [name, { query: `?toolsets=${name}`, tools: names }]),
        ),
        prompts: PROMPTS.map((p) => ({ name: p.name, title: p.title, description: p.description })),
        resources: offeredViews(offered).map((v) => ({ uri: v.uri, title: v.title })),
        extensions: [APPS_EXTENSION.id, TASKS_EXTENSION],
      },
    },
  };
}
