/**
 * The official MCP SDK's own minimal stateless server (v2), as its serving guide builds it:
 * createMcpHandler with a per-request McpServer factory, mounted on plain node:http with
 * toNodeHandler, with one trivial tool returning the same credits JSON:
 * `node mcp-sdk.js PORT CREDITS.json`. It serves both eras with the SDK's defaults (2026-07-28
 * per request; 2025 requests through its stateless fallback).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

const [portArg, creditsPath] = process.argv.slice(2);
if (!portArg || !creditsPath) {
  process.stderr.write('usage: mcp-sdk.js PORT CREDITS.json\n');
  process.exit(2);
}
const credits = JSON.parse(readFileSync(creditsPath, 'utf8')) as Record<string, unknown>;

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'bench-baseline', version: '1.0.0' });
  server.registerTool('get_credits', { description: 'Shows the credit balances.' }, () => ({
    content: [{ type: 'text', text: JSON.stringify(credits) }],
    structuredContent: credits,
  }));
  return server;
});
const mcp = toNodeHandler(handler);

createServer((req, res) => {
  if (req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    return;
  }
  void mcp(req, res);
}).listen(Number(portArg), '127.0.0.1');
