import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Ctx } from '../core/context.js';
import type { Tool } from '../tools/define.js';
import { newRequestId } from './http.js';
import { buildMcpServer } from './server.js';

/**
 * MCP over stdio with the key from OUTREACH_API_KEY. The key is checked on every call, so a
 * revoked key stops working at once; stdout carries protocol messages only.
 */
export async function serveStdio(ctx: Ctx, tools: readonly Tool[], apiKey: string): Promise<void> {
  const server = buildMcpServer(ctx, tools, { apiKey }, newRequestId);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.on('end', resolve);
  });
  await server.close();
}
