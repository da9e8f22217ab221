import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Ctx } from '../core/context.js';
import type { Tool } from '../tools/define.js';
import { newRequestId } from '../http/request.js';
import { connectServer, stdioMcpServer } from './server.js';

/**
 * MCP over stdio with the key from OUTREACH_API_KEY. The key is checked on every call, so a
 * revoked key stops working at once; stdout carries protocol messages only.
 */
export async function serveStdio(ctx: Ctx, tools: readonly Tool[], apiKey: string): Promise<void> {
  const server = stdioMcpServer(ctx, tools, { apiKey }, newRequestId);
  const transport = new StdioServerTransport();
  await connectServer(server, transport);
  await new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.on('end', resolve);
  });
  await server.close();
}
