import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string; mcpName: string };

export const SERVER_NAME = pkg.name;
export const SERVER_VERSION = pkg.version;
/** The server's name in the official MCP registry (reverse DNS), as server.json and the Server Card give it. */
export const MCP_NAME = pkg.mcpName;
/** One line about the server, at most 100 characters (the registry's and the Server Card's limit). */
export const SERVER_DESCRIPTION = 'Self-hosted LinkedIn outreach for one workspace: campaigns, leads, replies and credits, MCP-first.';
