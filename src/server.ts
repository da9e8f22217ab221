import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import { ScaledClock, systemClock, type Clock } from './core/clock.js';
import { closeContext, type Ctx } from './core/context.js';
import { openDatabase } from './db/connection.js';
import { Engine, resolveEngineSettings, simHighWater } from './workers/outreach/index.js';
import { SqliteSimInboxStore } from './core/network/sim-inbox-store.js';
import { SqliteUnipileStore } from './core/network/unipile-store.js';
import { SimulatedNetwork } from './network/sim/index.js';
import { UnconfiguredNetwork } from './network/unconfigured.js';
import type { NetworkProvider } from './core/network/provider.js';
import { completeUnipileConfig, createUnipileProvider, HOSTED_AUTH_NOTIFY_PATH, UNIPILE_WEBHOOK_PATH, UnipileProvider } from './network/unipile/index.js';
import type { Db } from './db/connection.js';
import { createHost, type Host, type HostOptions } from './http/host.js';
import { mountMcp } from './mcp/mount.js';
import { mountRest } from './rest/mount.js';
import { dashboardTools, tools } from './tools/index.js';
import { mountWeb, type WebOptions } from './web/mount.js';
import { dashboardLoginHint, publicKeyCommand, UsageError, type ConfigFile, type Settings } from './config.js';
import { createLimiter, resolveLimits } from './core/ratelimit/index.js';
import { ApiError } from './core/errors.js';
import type { Tool } from './tools/define.js';
import { configToolSets, parseSwitch, parseToolNames, requestToolSet, type ToolSets } from './tools/select.js';
import { webhookPolicy } from './core/webhooks/ssrf.js';
import { WebhookWorker } from './workers/webhooks/worker.js';
import { LookalikeWorker } from './workers/lookalike/worker.js';
import { ImportResumer } from './workers/imports/worker.js';
import { TriageWorker } from './workers/triage/worker.js';
import { MailPoller } from './workers/mail/worker.js';
import { createDrafter, createTriager, missingDrafterKey } from './network/drafter/index.js';
import { Mail } from './network/mail/index.js';
import { createCrm } from './network/crm/index.js';
import { SqliteSimMailStore } from './core/network/sim-mail-store.js';
import { crmSyncOf, missingCrmToken } from './core/crm/config.js';
import { crmConnection } from './core/crm/read.js';
import type { CrmPort } from './core/network/crm.js';
import { CrmWorker } from './workers/crm/worker.js';

export interface RunningServer {
  ctx: Ctx;
  http: HttpServer;
  /** e.g. http://127.0.0.1:3000 */
  url: string;
  /** The outreach engine, when this server runs one (it may be a standby if another process holds the lease). */
  engine: Engine | null;
  /** Delivers the webhook outbox while the server runs. */
  webhooks: WebhookWorker;
  /** Fills Lookalike campaigns, when this server runs the worker. */
  lookalike: LookalikeWorker | null;
  /** Resumes dashboard imports that a stopped or killed server left running. */
  imports: ImportResumer;
  /** Drains the CRM outbox and polls the CRM, when the config has a `crm` section and its token is set. */
  crm: CrmWorker | null;
  close(): Promise<void>;
}

/**
 * Opens the database and builds the context, one per process: the limiter's buckets live
 * here, so every transport shares them. The simulated clock continues from the latest
 * simulated time a previous run reached (never before wall time), so it never runs backwards
 * across restarts. Development talks to the simulated network, with its scheduled responses
 * in SQLite; production has no provider configured yet.
 */
export function createContext(
  settings: Pick<Settings, 'dbPath' | 'env'> & { simSpeed?: number; config?: ConfigFile; unipile?: Settings['unipile']; importLeaseMs?: number },
  log: Logger,
  clock: Clock = systemClock,
  /** The engine's clock; by default `clock` at `simSpeed`, resumed no earlier than the stored high-water mark. */
  sim?: Clock,
): Ctx {
  const db = openDatabase(settings.dbPath, { onBackup: (file) => log.warn({ file }, 'copied the database before migrating it') });
  const limits = createLimiter(clock, resolveLimits(settings.config?.limits));
  const simClock = sim ?? new ScaledClock(clock, settings.simSpeed ?? 1, Math.max(clock.now(), simHighWater(db)));
  const network = createNetwork(settings, db, simClock, clock, log);
  // Real SMTP and IMAP for every environment; simulated mailboxes only in development.
  const mail = new Mail({ env: process.env, ...(settings.env === 'development' ? { sim: { store: new SqliteSimMailStore(db), clock: simClock } } : {}) });
  const keyCommand = settings.dbPath === ':memory:' ? undefined : publicKeyCommand(settings.env);
  const importLeaseMs = settings.importLeaseMs;
  return {
    db,
    clock,
    log,
    env: settings.env,
    limits,
    simClock,
    network,
    mail,
    ...(keyCommand ? { keyCommand } : {}),
    ...(importLeaseMs !== undefined ? { importLeaseMs } : {}),
    // The same rules the engine runs with, so list_accounts shows the limits the engine applies.
    safety: resolveEngineSettings(settings.config?.engine).safety,
    invitationTimeoutMs: resolveEngineSettings(settings.config?.engine).invitationTimeoutMs,
    ...(settings.config?.drafter ? { drafter: createDrafter(settings.config.drafter), triager: createTriager(settings.config.drafter) } : {}),
    // With a `crm` section the recorders queue pushes for the CRM worker; without one, nothing CRM-related runs.
    ...(settings.config?.crm ? { crm: crmSyncOf(settings.config.crm) } : {}),
  };
}

/**
 * Development runs on the simulated network, with its scheduled responses in SQLite.
 * Production runs on Unipile; `productionGaps` keeps a production server without a complete
 * Unipile config from starting, and commands that only read the database get a provider that
 * refuses every network call.
 */
function createNetwork(
  settings: Pick<Settings, 'env'> & { unipile?: Settings['unipile'] },
  db: Db,
  simClock: Clock,
  clock: Clock,
  log: Logger,
): NetworkProvider {
  if (settings.env === 'development') return new SimulatedNetwork({ clock: simClock, wallClock: clock, inbox: new SqliteSimInboxStore(db, clock) });
  const unipile = completeUnipileConfig(settings.unipile ?? {});
  return unipile ? createUnipileProvider(unipile, { store: new SqliteUnipileStore(db, simClock), clock, log }) : new UnconfiguredNetwork();
}

/** The engine for a context, configured from the `engine` section of the config file. */
export const createEngine = (ctx: Ctx, settings: Pick<Settings, 'config'>): Engine =>
  new Engine(ctx, { settings: resolveEngineSettings(settings.config.engine) });

export interface ServerOptions {
  /** Run the outreach engine in this process (default true). */
  engine?: boolean;
  /** Run the Lookalike worker in this process (default true). */
  lookalike?: boolean;
  /** The built dashboard to serve at /app (default: dist/ui/dashboard). */
  uiDir?: string;
  /** The CRM adapter the CRM worker calls (default: the one the config's `crm` section names). */
  crm?: CrmPort;
}

/** The MCP tool sets the config permits and lists by default; a bad selection is a usage error naming the config key. */
export function configuredToolSets(settings: Pick<Settings, 'config'>): ToolSets {
  return explain(
    () => configToolSets(tools, settings.config.tools ?? {}, { include: 'tools.include', readOnly: 'tools.readOnly', toolsets: 'tools.toolsets' }),
    '--config',
  );
}

/**
 * The MCP tool set a process serves by default: the config's, with the stdio environment
 * variables on top (OUTREACH_TOOLSETS adds toolsets; OUTREACH_TOOLS and OUTREACH_READONLY narrow).
 */
export function configuredTools(settings: Pick<Settings, 'config'>, vars: NodeJS.ProcessEnv = {}): Tool[] {
  const sets = configuredToolSets(settings);
  const include = vars.OUTREACH_TOOLS;
  const readOnly = vars.OUTREACH_READONLY;
  const toolsets = vars.OUTREACH_TOOLSETS;
  const on = readOnly ? parseSwitch(readOnly) : undefined;
  if (readOnly && on === undefined) throw new UsageError(`OUTREACH_READONLY: "${readOnly}" must be 1 or 0`);
  const sel = { include: include ? parseToolNames(include) : undefined, readOnly: on, toolsets: toolsets ? parseToolNames(toolsets) : undefined };
  return explain(() => requestToolSet(sets, sel, { include: 'OUTREACH_TOOLS', readOnly: 'OUTREACH_READONLY', toolsets: 'OUTREACH_TOOLSETS' }), null);
}

function explain<T>(fn: () => T, source: string | null): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(source ? `${source}: ${err.message}` : err.message);
    throw err;
  }
}

export interface ServerHostOptions extends Pick<HostOptions, 'host' | 'webhooks' | 'front' | 'trustProxy'> {
  /** Every tool: REST serves them all. */
  tools: readonly Tool[];
  /** The tools MCP serves (after the config's tool selection); the default listing of `tools` otherwise. */
  mcpTools?: readonly Tool[];
  /** What MCP clients may add with `?toolsets=` or pick with `?tools=` (every tool otherwise). */
  mcpToolSets?: ToolSets;
  /** The dashboard at /app, when this host serves it. */
  web?: WebOptions;
}

/** The HTTP host with its faces: MCP, then REST, then the dashboard. */
export function serverHost(ctx: Ctx, opts: ServerHostOptions): Host {
  const mcpTools = opts.mcpTools ?? opts.tools.filter((t) => t.toolset === undefined);
  const toolSets: ToolSets = opts.mcpToolSets ?? { universe: opts.tools, base: {} };
  return createHost(ctx, {
    host: opts.host,
    mcpTools,
    mcpPermitted: toolSets.universe,
    // MCP's few routes first, then REST's one route per tool: Express tries each route in turn,
    // so a call to /mcp behind REST's routes paid for some fifty path matches (bench/METHOD.md),
    // and REST's own calls pay for MCP's seven. No route of one shares a path with the other.
    mounts: [
      (app, host) => mountMcp(app, host, ctx, mcpTools, toolSets),
      (app, host) => mountRest(app, host, ctx, opts.tools),
      ...(opts.web ? [(app: Express) => mountWeb(app, ctx, opts.web!)] : []),
    ],
    webhooks: opts.webhooks,
    front: opts.front,
    trustProxy: opts.trustProxy,
  });
}

const hostForUrl = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** Opens the database and serves HTTP (REST, MCP, discovery) on one port. */
export async function startServer(
  settings: Settings,
  log: Logger,
  ctx: Ctx = createContext(settings, log),
  options: ServerOptions = {},
): Promise<RunningServer> {
  const unipile = ctx.network instanceof UnipileProvider ? ctx.network : null;
  const { handler } = serverHost(ctx, {
    host: settings.host,
    trustProxy: settings.trustProxy === true,
    tools,
    mcpTools: configuredTools(settings),
    mcpToolSets: configuredToolSets(settings),
    web: {
      tools: dashboardTools,
      uiDir: options.uiDir,
      loginHint: dashboardLoginHint(settings),
      crm: crmConnection(settings.config.crm),
      ...(settings.publicUrl ? { publicUrl: settings.publicUrl } : {}),
    },
    webhooks: unipile ? [unipile.webhook(UNIPILE_WEBHOOK_PATH), unipile.hostedNotifyWebhook(HOSTED_AUTH_NOTIFY_PATH)] : [],
  });
  const http = await new Promise<HttpServer>((resolve, reject) => {
    const s = createHttpServer(handler);
    s.on('error', reject);
    s.listen(settings.port, settings.host, () => resolve(s));
  });
  // Node's defaults would cut slow MCP batch calls; the spec's host timeout is 300 s.
  http.requestTimeout = 310_000;
  http.headersTimeout = 60_000;
  const { port } = http.address() as AddressInfo;
  const url = `http://${hostForUrl(settings.host)}:${port}`;
  // Links in emails (the one-click unsubscribe) point at the public address, else at this one.
  ctx.publicUrl ??= settings.publicUrl ?? url;
  // Production accounts come from Unipile; a failed first sync is retried by the provider.
  if (unipile) void unipile.syncAccounts().catch((err: unknown) => log.warn({ err }, 'Unipile account sync failed; retrying later'));
  const keyVariable = missingDrafterKey(settings.config.drafter);
  if (keyVariable)
    log.warn({ variable: keyVariable }, 'drafter: the variable named for the model key is not set; new drafts keep their rendered text until it is');
  const engine = options.engine === false ? null : createEngine(ctx, settings);
  engine?.start();
  // Dashboard imports a stopped or killed server left running continue here, now and whenever one is stranded.
  const imports = new ImportResumer(ctx);
  imports.start();
  const { webhooks, crm, stop: stopOutboxes } = startOutboxWorkers(ctx, settings, log, options.crm);
  const lookalike = options.lookalike === false ? null : new LookalikeWorker(ctx);
  lookalike?.start();
  // Replies and bounces in the mailboxes' inboxes; with the engine, as they end sequences.
  const mail = options.engine === false ? null : new MailPoller(ctx, resolveEngineSettings(settings.config.engine), { simSpeed: settings.simSpeed });
  mail?.start();
  return {
    ctx,
    http,
    url,
    engine,
    webhooks,
    lookalike,
    imports,
    crm,
    close: async () => {
      imports.stop();
      await mail?.stop();
      await engine?.stop();
      await lookalike?.stop();
      await stopOutboxes();
      await unipile?.idle();
      await new Promise<void>((resolve) => {
        http.close(() => {
          closeContext(ctx);
          resolve();
        });
        http.closeAllConnections();
      });
    },
  };
}

/**
 * The CRM worker, when the config has a `crm` section: without the token's variable it does not
 * start (pushes wait in the outbox, nothing is lost) and the log says which variable to set.
 */
/**
 * The workers that carry what the process records out of it: webhook deliveries, triage of the
 * replies the rules left open (with a model configured), and CRM pushes. Every process that
 * records events runs them, the server and `outreach mcp` alike (over stdio the engine records
 * acceptances, replies and hand-offs too); each leases its rows, so two processes on one
 * database share the work and never do it twice. `stop` waits for work in flight, which records
 * its outcome, so it runs before the database closes.
 */
export function startOutboxWorkers(
  ctx: Ctx,
  settings: Pick<Settings, 'config' | 'env'>,
  log: Logger,
  crmPort?: CrmPort | null,
): { webhooks: WebhookWorker; crm: CrmWorker | null; stop: () => Promise<void> } {
  const webhooks = new WebhookWorker(ctx, { policy: webhookPolicy(settings) });
  webhooks.start();
  const triage = new TriageWorker(ctx);
  triage.start();
  const crm = startCrmWorker(ctx, settings, log, crmPort ?? createCrm(settings.config.crm, process.env));
  return {
    webhooks,
    crm,
    stop: async () => {
      // Pushes in flight finish (or are left to their lease) before the database closes.
      await crm?.stop();
      await triage.stop();
      await webhooks.stop();
    },
  };
}

function startCrmWorker(ctx: Ctx, settings: Pick<Settings, 'config'>, log: Logger, port: CrmPort | null): CrmWorker | null {
  if (!ctx.crm || !port) return null;
  const missing = missingCrmToken(settings.config.crm);
  if (missing) {
    log.warn({ variable: missing }, 'crm: the variable named for the CRM token is not set; pushes wait in the outbox until it is');
    return null;
  }
  const worker = new CrmWorker(ctx, port);
  worker.start();
  return worker;
}
