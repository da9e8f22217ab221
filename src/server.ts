import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { systemClock, type Clock } from './core/clock.js';
import type { Ctx } from './core/context.js';
import { openDatabase } from './db/connection.js';
import { createApp } from './rest/app.js';
import { tools } from './tools/index.js';
import type { Settings } from './config.js';
import { WebhookWorker, webhookPolicy } from './webhooks/worker.js';

export interface RunningServer {
  ctx: Ctx;
  http: HttpServer;
  /** e.g. http://127.0.0.1:3000 */
  url: string;
  /** Delivers the webhook outbox while the server runs. */
  webhooks: WebhookWorker;
  close(): Promise<void>;
}

export function createContext(settings: Pick<Settings, 'dbPath' | 'env'>, log: Logger, clock: Clock = systemClock): Ctx {
  return { db: openDatabase(settings.dbPath), clock, log, env: settings.env };
}

const hostForUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** Opens the database and serves HTTP (REST, MCP, discovery) on one port. */
export async function startServer(settings: Settings, log: Logger, ctx: Ctx = createContext(settings, log)): Promise<RunningServer> {
  const app = createApp(ctx, tools, { host: settings.host });
  const http = await new Promise<HttpServer>((resolve, reject) => {
    const s = app.listen(settings.port, settings.host, (err?: Error) => (err ? reject(err) : resolve(s)));
    s.on('error', reject);
  });
  // Node's defaults would cut slow MCP batch calls; the spec's host timeout is 300 s.
  http.requestTimeout = 310_000;
  http.headersTimeout = 60_000;
  const { port } = http.address() as AddressInfo;
  const url = `http://${hostForUrl(settings.host)}:${port}`;
  const webhooks = new WebhookWorker(ctx, { policy: webhookPolicy(settings) });
  webhooks.start();
  return {
    ctx,
    http,
    url,
    webhooks,
    close: async () => {
      // The worker records attempt outcomes, so it stops before the database closes.
      await webhooks.stop();
      await new Promise<void>((resolve) => {
        http.close(() => {
          ctx.db.$client.close();
          resolve();
        });
        http.closeAllConnections();
      });
    },
  };
}
