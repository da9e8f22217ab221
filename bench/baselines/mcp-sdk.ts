/**
 * The MCP SDK's own minimal stateless streamable-HTTP server, as its example
 * (simpleStatelessStreamableHttp) builds it, with one trivial tool returning the same
 * credits JSON: `node mcp-sdk.js PORT CREDITS.json`. JSON responses, as the real server.
 */
import { readFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';

const [portArg, creditsPath] = process.argv.slice(2);
if (!portArg || !creditsPath) {
  process.stderr.write('usage: mcp-sdk.js PORT CREDITS.json\n');
  process.exit(2);
}
const credits = JSON.parse(readFileSync(creditsPath, 'utf8')) as Record<string, unknown>;

function getServer(): McpServer {
  const server = new McpServer({ name: 'bench-baseline', version: '1.0.0' });
  server.registerTool('get_credits', { description: 'Shows the credit balances.' }, () => ({
    content: [{ type: 'text', text: JSON.stringify(credits) }],
    structuredContent: credits,
  }));
  return server;
}

const app = createMcpExpressApp();
app.get('/health', (_req, res) => {
  res.json({ status: 'ok' });
});
app.post('/mcp', async (req, res) => {
  const server = getServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.listen(Number(portArg), '127.0.0.1');
