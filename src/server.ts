import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { systemClock, type Clock } from './core/clock.js';
import type { Ctx } from './core/context.js';
import { openDatabase } from './db/connection.js';
import { createApp } from './rest/app.js';
import { tools } from './tools/index.js';
import { UsageError, type Settings } from './config.js';
import { ApiError } from './core/errors.js';
import type { Tool } from './tools/define.js';
import { parseSwitch, parseToolNames, selectTools, type SelectionFields, type ToolSelection } from './tools/select.js';

export interface RunningServer {
  ctx: Ctx;
  http: HttpServer;
  /** e.g. http://127.0.0.1:3000 */
  url: string;
  close(): Promise<void>;
}

export function createContext(settings: Pick<Settings, 'dbPath' | 'env'>, log: Logger, clock: Clock = systemClock): Ctx {
  return { db: openDatabase(settings.dbPath), clock, log, env: settings.env };
}

/** The MCP tool set the config asks for; a bad selection is a usage error naming the config key. */
export function configuredTools(settings: Pick<Settings, 'config'>, vars: NodeJS.ProcessEnv = {}): Tool[] {
  let chosen = selectOrExplain(tools, settings.config.tools ?? {}, { include: 'tools.include', readOnly: 'tools.readOnly' }, '--config');
  // Environment variables narrow the config's set further (stdio clients configure them).
  const include = vars.OUTREACH_TOOLS;
  const readOnly = vars.OUTREACH_READONLY;
  if (include || readOnly) {
    const on = readOnly ? parseSwitch(readOnly) : undefined;
    if (readOnly && on === undefined) throw new UsageError(`OUTREACH_READONLY: "${readOnly}" must be 1 or 0`);
    const sel = { include: include ? parseToolNames(include) : undefined, readOnly: on };
    chosen = selectOrExplain(chosen, sel, { include: 'OUTREACH_TOOLS', readOnly: 'OUTREACH_READONLY' }, null);
  }
  return chosen;
}

function selectOrExplain(from: readonly Tool[], sel: ToolSelection, fields: SelectionFields, source: string | null): Tool[] {
  try {
    return selectTools(from, sel, fields);
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(source ? `${source}: ${err.message}` : err.message);
    throw err;
  }
}

const hostForUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** Opens the database and serves HTTP (REST, MCP, discovery) on one port. */
export async function startServer(settings: Settings, log: Logger, ctx: Ctx = createContext(settings, log)): Promise<RunningServer> {
  const app = createApp(ctx, tools, { host: settings.host, mcpTools: configuredTools(settings) });
  const http = await new Promise<HttpServer>((resolve, reject) => {
    const s = app.listen(settings.port, settings.host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.on('error', reject);
  });
  // Node's defaults would cut slow MCP batch calls; the spec's host timeout is 300 s.
  http.requestTimeout = 310_000;
  http.headersTimeout = 60_000;
  const { port } = http.address() as AddressInfo;
  const url = `http://${hostForUrl(settings.host)}:${port}`;
  return {
    ctx,
    http,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => {
          ctx.db.$client.close();
          resolve();
        });
        http.closeAllConnections();
      }),
  };
}
