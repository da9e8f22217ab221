import { lookup } from 'node:dns/promises';
import { createServer as createNetServer } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { apiKeyState, checkKeyScope, createApiKey, listApiKeys, revokeApiKey, type KeyEnv } from '../core/auth/keys.js';
import type { KeyScope } from '../core/auth/scope.js';
import { closeContext, type Ctx } from '../core/context.js';
import { ApiError } from '../core/errors.js';
import { WorkspaceFile } from '../core/seed/file.js';
import { SeedError, loadWorkspace } from '../core/seed/load.js';
import { ensureDemo } from '../core/seed/demo.js';
import { describeIssue, inputShapeProblem } from '../core/validation.js';
import { ensureWorkspace } from '../core/workspace/create.js';
import { getWorkspace } from '../core/workspace/get.js';
import { CLI_SCRIPT, keyCreateCommand, npxCommand, productionGaps, resolveSettings, selfNamed, UsageError, type Settings } from '../config.js';
import { createLogger } from '../log.js';
import { LookalikeWorker } from '../workers/lookalike/worker.js';
import { configuredTools, createContext, createEngine, startOutboxWorkers, startServer } from '../server.js';
import { SERVER_VERSION } from '../version.js';
import { commandHelp, wantsHelp } from './help.js';
import { asOwner, cliAdvice, newDatabaseAt, parse, removeNewDatabase, requireFile, stdout, table, withDb, type Options } from './shared.js';
import { WEBHOOKS_USAGE, webhooks } from './webhooks.js';
import { login, loginCommand, LOGIN_USAGE, newLoginLink, serverBase } from './login.js';
import { accounts, agents, campaigns, exclusions, importCommand, mailboxes, MANAGE_USAGE } from './manage.js';
import { BACKUP_USAGE, backup, restore } from './backup.js';
import { CREDITS_USAGE, creditsAddCommand, credits } from './credits.js';
import { MEMBERS_USAGE, members } from './members.js';
import { AUDIT_USAGE, audit } from './audit.js';
import { CRM_USAGE, crm } from './crm.js';

const ENV_NOTE = `Each flag has an environment variable: HOST, PORT, OUTREACH_DB, OUTREACH_ENV,
OUTREACH_SIM_SPEED, OUTREACH_CONFIG. A flag wins over its variable. Behind a reverse proxy,
OUTREACH_PUBLIC_URL (or publicUrl in the config) is the address browsers use, e.g.
https://outreach.example.com: dashboard writes from it are accepted and login links name it.`;

const USAGE = `outreach ${SERVER_VERSION}

Usage: npx outreach <command> [options]

Commands:
  start [--host H] [--port P] [--db PATH] [--env development|production] [--sim-speed N] [--config FILE]
                        Run the HTTP server (REST under /public/v1, MCP at /mcp, the dashboard at /app).
  mcp [--db PATH] [--env E] [--create]
                        Run MCP over stdio; the API key comes from OUTREACH_API_KEY.
                        OUTREACH_TOOLSETS=manage adds the manage toolset (campaigns, agents,
                        accounts, imports, exclusions); OUTREACH_TOOLS=a,b and
                        OUTREACH_READONLY=1 narrow the tool set.
                        The database must exist (the server's --db) unless --create is given.
  seed --file FILE [--db PATH] [--reset]
                        Load a workspace file; --reset replaces an existing workspace.
  keys create --env test|live [--name NAME] [--read-only] [--toolsets a,b]
              [--campaign ID]... [--expires ISO-8601] [--db PATH]
                        Create an API key and print it once (on an empty database, also an
                        empty workspace: grant it credits with credits add). The scope flags
                        narrow it: no writes, only the toolsets named (standard, manage,
                        drafts, triage, audit), only the campaigns named (others are 404 to
                        it), 401 key_expired after --expires.
  keys list [--db PATH] List keys with their scope (never the keys themselves).
  keys revoke ID [--db PATH]
                        Revoke a key at once.
${CREDITS_USAGE}
${WEBHOOKS_USAGE}
${MANAGE_USAGE}
${LOGIN_USAGE}
${MEMBERS_USAGE}
${AUDIT_USAGE}
${CRM_USAGE}
${BACKUP_USAGE}

${ENV_NOTE}

Add --help after any command or subcommand for its own usage.`;

const SERVER_OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  db: { type: 'string' },
  env: { type: 'string' },
  'sim-speed': { type: 'string' },
  config: { type: 'string' },
} satisfies Options;

async function start(args: string[]): Promise<void> {
  const { values } = parse(args, SERVER_OPTIONS);
  const settings = resolveSettings(values);
  const gaps = productionGaps(settings);
  if (gaps.length) throw new UsageError(`--env production: cannot start without ${gaps.join(', ')}`);
  // Checked before anything is written: a bad tool selection or host must leave no database
  // behind, and no demo key that is never shown.
  configuredTools(settings);
  await checkHost(settings.host);
  await checkPort(settings.host, settings.port);
  const log = createLogger();
  const created = newDatabaseAt(settings.dbPath);
  const ctx = openContext(settings, log);
  let server: Awaited<ReturnType<typeof startServer>>;
  let newKey: string | null = null;
  try {
    newKey = settings.env === 'development' ? ensureDemo(ctx) : null;
    server = await startServer(settings, log, ctx);
  } catch (err) {
    // The port was taken in between: a database this start made goes, with the demo key nobody saw.
    closeContext(ctx);
    removeNewDatabase(created);
    throw err;
  }
  // Clients reach the server at its public address when one is configured.
  stdout(banner(settings, settings.publicUrl ?? server.url, newKey));
  stdout(`\n${dashboardLines(ctx, settings, serverBase(settings, (server.http.address() as { port: number }).port))}`);
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** A port in use fails by name before anything is written (a demo workspace, its key). */
async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((done, fail) => {
    const probe = createNetServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      fail(err.code === 'EADDRINUSE' ? new UsageError('--port: the address is already in use; pick another port') : err),
    );
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => done()));
  });
}

/** An unresolvable --host fails by name before anything is written, not as a listen error after. */
async function checkHost(host: string): Promise<void> {
  try {
    await lookup(host);
  } catch (err) {
    throw new UsageError(`--host: cannot resolve "${host}" (${(err as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
  }
}

/** createContext, with a database that cannot be opened or created reported against --db. */
function openContext(settings: Settings, log: ReturnType<typeof createLogger>): ReturnType<typeof createContext> {
  try {
    return createContext(settings, log);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^(SQLITE_|E[A-Z]+$)/.test(code)) {
      throw new UsageError(`--db: cannot open or create ${settings.dbPath}: ${(err as Error).message.split('\n')[0]}`);
    }
    throw err;
  }
}

/**
 * Last, so it is what a person sees: a fresh one-time link to the dashboard when a person is
 * watching (a terminal). Otherwise (systemd, docker, a log shipper) a link would sit in a log
 * file, so no link is minted: the lines say how to get one.
 */
function dashboardLines(ctx: ReturnType<typeof createContext>, settings: Settings, base: string, tty = process.stdout.isTTY === true): string {
  const command = loginCommand(settings, base);
  if (!tty) return `Dashboard: ${base}/app/ — get a one-time login link (valid 15 minutes) with:\n  ${command}`;
  return `Dashboard: open this one-time login link within 15 minutes (a new one: ${command}):\n  ${newLoginLink(ctx, base)}`;
}

/** Simulated hours a second: the first acceptances and replies within a minute or two. */
const WATCH_SPEED = 360;

function banner(settings: Settings, url: string, newKey: string | null): string {
  const key = newKey ?? `<your ${settings.env === 'production' ? 'sk_live_' : 'sk_test_'} key>`;
  const config = { mcpServers: { outreach: { type: 'http', url: `${url}/mcp`, headers: { 'X-API-Key': key } } } };
  // Absolute paths and the database in use, so the config works from any client and folder;
  // npx and this version's package when npx runs the server (its cache path is no place to point at).
  const mcpArgs = ['mcp', '--db', settings.dbPath, '--env', settings.env];
  const viaNpx = npxCommand();
  const [command, ...prefix] = viaNpx ? viaNpx.split(' ') : [process.execPath, CLI_SCRIPT];
  const stdioConfig = { mcpServers: { outreach: { command, args: [...prefix, ...mcpArgs], env: { OUTREACH_API_KEY: key } } } };
  const lines = [
    `outreach-mcp ${SERVER_VERSION} (${settings.env}${settings.env === 'development' ? `, simulated network at ${settings.simSpeed}x` : ''})`,
    `  REST base: ${url}/public/v1`,
    `  MCP URL:   ${url}/mcp`,
    `  Database:  ${settings.dbPath}`,
    '',
  ];
  if (newKey) {
    lines.push('Created the demo workspace and a new API key. It is shown only this once; store it now:', '', `  ${newKey}`, '');
  } else {
    lines.push('Use an existing key, or create one with:', `  ${keyCreateCommand(settings)}`, '');
  }
  lines.push(
    'MCP client config over HTTP (paste into your client):',
    JSON.stringify(config, null, 2),
    `To manage campaigns, agents, accounts and imports from the client too, add the manage toolset: "url": "${url}/mcp?toolsets=manage"`,
    '',
    'MCP client config over stdio (works from any folder):',
    JSON.stringify(stdioConfig, null, 2),
    'For the manage toolset over stdio, add "OUTREACH_TOOLSETS": "manage" to its "env".',
    '',
  );
  if (settings.env === 'development' && settings.simSpeed < WATCH_SPEED) {
    lines.push(
      `The simulated network keeps time at --sim-speed ${settings.simSpeed}: invitations are accepted after hours and replies`,
      `take hours too. To watch the demo move, restart with --sim-speed ${WATCH_SPEED} (an hour every 10 seconds).`,
      '',
    );
  }
  lines.push('Try it:', `  curl -H "X-API-Key: ${key}" ${url}/public/v1/credits`);
  return lines.join('\n');
}

async function mcp(args: string[]): Promise<void> {
  const { values } = parse(args, { db: SERVER_OPTIONS.db, env: SERVER_OPTIONS.env, create: { type: 'boolean' } });
  const settings = resolveSettings({ db: values.db, env: values.env });
  // As `start`: production runs on a real network provider, so without one it does not start.
  const gaps = productionGaps(settings);
  if (gaps.length) throw new UsageError(`--env production: cannot start without ${gaps.join(', ')}`);
  const key = process.env.OUTREACH_API_KEY;
  if (!key) throw new UsageError('OUTREACH_API_KEY is not set: export the API key for the MCP stdio server to use');
  const offered = configuredTools(settings, process.env);
  // A client started in another folder would otherwise get a new empty database there, and
  // every call would fail with a key that exists in the real one.
  if (!values.create && settings.dbPath !== ':memory:' && !existsSync(settings.dbPath)) {
    throw new UsageError(`--db: no database at ${settings.dbPath}; pass the --db your server uses, or --create to start a new empty one`);
  }
  const log = createLogger();
  const ctx = createContext(settings, log);
  // The stdio server runs the engine too; with another process holding the lease it waits as a standby.
  const engine = createEngine(ctx, settings);
  engine.start();
  // Lookalike jobs are leased one by one, so this worker and a server's share the queue safely.
  const lookalike = new LookalikeWorker(ctx);
  lookalike.start();
  // What this process records (a tag, an acceptance, a reply) reaches webhook endpoints and the
  // CRM without a server beside it; with one, the two share the deliveries by lease.
  const outboxes = startOutboxWorkers(ctx, settings, log);
  try {
    // Only this command speaks stdio; `start` never loads its transport.
    const { serveStdio } = await import('../mcp/stdio.js');
    await serveStdio(ctx, offered, key);
  } finally {
    await engine.stop();
    await lookalike.stop();
    await outboxes.stop();
  }
}

function seed(args: string[]): void {
  const { values } = parse(args, { file: { type: 'string' }, db: { type: 'string' }, reset: { type: 'boolean' } });
  if (!values.file) throw new UsageError('--file: required (the workspace JSON file to load)');
  requireFile('--file', values.file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(values.file, 'utf8'));
  } catch {
    throw new UsageError(`--file: ${values.file} is not valid JSON`);
  }
  // Depth and words first, as for a tool call: a file nested thousands deep must not overflow the schema's recursion.
  const shape = inputShapeProblem(json);
  if (shape) throw new UsageError(`--file: ${shape.message}`);
  const parsed = WorkspaceFile.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      `--file: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => describeIssue(i))
        .join('; ')}`,
    );
  }
  const settings = resolveSettings({ db: values.db });
  const f = parsed.data;
  const leads = f.campaigns.reduce((n, c) => n + c.leads.length, 0);
  const counts = `${f.apiKeys.length} API key(s), ${f.accounts.length} account(s), ${f.agents.length} agent(s), ${f.campaigns.length} campaign(s), ${leads} lead(s)`;
  // withDb: a refused file leaves no new database behind. Replacing a workspace is the owner's
  // write, in the trail (which the reset keeps), in the load's transaction. A first load makes
  // the workspace, as restore does, and records nothing: its first member added is its owner.
  withDb(values.db, (ctx) => {
    try {
      const load = () => loadWorkspace(ctx, f, { reset: values.reset ?? false });
      if (values.reset && getWorkspace(ctx)) {
        asOwner(ctx, { action: 'seed.reset', targets: [], summary: `Replace the workspace from a workspace file: ${counts}` }, load);
      } else load();
    } catch (err) {
      if (err instanceof SeedError) throw new UsageError(err.message);
      throw err;
    }
  });
  stdout(`Loaded workspace into ${settings.dbPath}: ${counts}.`);
}

/** The scope flags of `keys create`, as the scope's fields; undefined when none was given. */
function scopeFromFlags(values: {
  'read-only'?: boolean | undefined;
  toolsets?: string | undefined;
  campaign?: string[] | undefined;
  expires?: string | undefined;
}) {
  const scope: Record<string, unknown> = {};
  if (values['read-only']) scope.readOnly = true;
  if (values.toolsets !== undefined) scope.toolsets = values.toolsets.split(',').map((t) => t.trim());
  if (values.campaign !== undefined) scope.campaignIds = values.campaign;
  if (values.expires !== undefined) scope.expiresAt = utcInstant(values.expires);
  return Object.keys(scope).length ? scope : undefined;
}

/**
 * `--expires` takes any ISO-8601 instant: a date alone (`2027-01-01`) is that day's start in UTC,
 * and a date and time without an offset is read as UTC. Anything else goes on as given, for the
 * scope's own check to refuse or accept.
 */
function utcInstant(value: string): string {
  const given = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(given)) return `${given}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(given)) return `${given}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/.test(given)) return `${given}Z`;
  return value;
}

const SCOPE_FLAGS: Record<string, string> = { readOnly: '--read-only', toolsets: '--toolsets', campaignIds: '--campaign', expiresAt: '--expires' };

/** Checks the scope flags in core; a refusal names the flag. */
function keyScopeOrUsage(ctx: Ctx, input: Record<string, unknown> | undefined): KeyScope | null {
  try {
    return checkKeyScope(ctx, input);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const part = String(err.details.fields?.[0] ?? '').split('.')[1] ?? '';
    const flag = SCOPE_FLAGS[part] ?? '--scope';
    throw new UsageError(`${flag}: ${err.message.replace(/^scope\.[^:]*: /, '')}`);
  }
}

/** One line: what a scoped key reaches (`keys list`, `keys create`). */
export function describeScope(scope: KeyScope): string {
  const parts: string[] = [];
  if (scope.readOnly) parts.push('read-only');
  if (scope.toolsets) parts.push(`toolsets ${scope.toolsets.join(',')}`);
  if (scope.campaignIds) parts.push(`campaigns ${scope.campaignIds.join(',')}`);
  if (scope.expiresAt) parts.push(`expires ${scope.expiresAt}`);
  return parts.join('; ');
}

function keys(args: string[]): void {
  const [sub, ...rest] = args;
  const db = { db: { type: 'string' } } satisfies Options;
  switch (sub) {
    case 'create': {
      const { values } = parse(rest, {
        ...db,
        env: { type: 'string' },
        name: { type: 'string' },
        'read-only': { type: 'boolean' },
        toolsets: { type: 'string' },
        campaign: { type: 'string', multiple: true },
        expires: { type: 'string' },
      });
      if (values.env !== 'test' && values.env !== 'live')
        throw new UsageError(`--env: ${values.env === undefined ? 'required' : `"${values.env}"`}: must be test or live`);
      const name = values.name ?? `${values.env} key`;
      if (name.trim() === '' || name.length > 100) throw new UsageError('--name: must be 1-100 characters');
      const scopeInput = scopeFromFlags(values);
      return withDb(values.db, (ctx) => {
        const scope = keyScopeOrUsage(ctx, scopeInput);
        const created = ensureWorkspace(ctx);
        const { id, key } = asOwner(ctx, { action: 'keys.create', targets: [], summary: `Create ${values.env} key` }, () =>
          createApiKey(ctx, values.env as KeyEnv, name, scope),
        );
        const dbPath = resolveSettings({ db: values.db }).dbPath;
        if (created) stdout(`Created a new workspace in ${dbPath}. It has no credits yet.`);
        stdout(`Created ${values.env} key ${id} (${name}). It is shown only this once:\n\n  ${key}\n`);
        if (scope) stdout(`Scope: ${describeScope(scope)}`);
        if (created) {
          stdout(`Adding a lead costs 1 credit. Add credits with \`outreach credits add N\`, for example:\n  ${creditsAddCommand(dbPath)}`);
        }
      });
    }
    case 'list': {
      const { values } = parse(rest, db);
      return withDb(
        values.db,
        (ctx) => {
          const rows = listApiKeys(ctx);
          if (rows.length === 0) return stdout('No API keys. Create one with: npx outreach keys create --env test');
          table([
            ['ID', 'NAME', 'ENV', 'PREFIX', 'CREATED', 'LAST USED', 'STATUS', 'SCOPE'],
            ...rows.map((k) => [
              k.id,
              k.name,
              k.environment,
              `${k.prefix}…`,
              k.createdAt,
              k.lastUsedAt ?? '-',
              { active: 'active', revoked: `revoked ${k.revokedAt}`, expired: `expired ${k.scope?.expiresAt}` }[apiKeyState(ctx, k)],
              k.scope ? describeScope(k.scope) : 'all',
            ]),
          ]);
        },
        { mustExist: true },
      );
    }
    case 'revoke': {
      const { values, positionals } = parse(rest, db, 1);
      const id = positionals[0];
      if (!id) throw new UsageError('keys revoke: the key ID is required (see `npx outreach keys list`)');
      return withDb(
        values.db,
        (ctx) => {
          // The refusal is thrown inside the audited transaction: an unknown id records no event.
          asOwner(ctx, { action: 'keys.revoke', targets: [id], summary: 'Revoke API key' }, () => {
            if (!revokeApiKey(ctx, id)) throw new UsageError(`keys revoke: no key with id "${id}" (see \`npx outreach keys list\`)`);
          });
          stdout(`Revoked ${id}. It stops working at once.`);
        },
        { mustExist: true },
      );
    }
    default:
      throw new UsageError(sub ? `keys: unknown subcommand "${sub}" (create, list, revoke)` : 'keys: a subcommand is required (create, list, revoke)');
  }
}

/**
 * Every command and what runs it, in the order the unknown-command error lists them. A command
 * that returns no exit code exits 0; `start` returns -1: the server keeps the process alive.
 */
const COMMANDS: Record<string, (args: string[]) => unknown> = {
  start: async (args) => {
    await start(args);
    return -1;
  },
  mcp,
  seed,
  keys,
  credits,
  webhooks,
  campaigns,
  agents,
  accounts,
  mailboxes,
  import: importCommand,
  exclusions,
  login,
  members,
  audit,
  crm,
  backup,
  restore,
};

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  // `outreach help keys` is `outreach keys --help`.
  const [command, args] = first === 'help' && rest.length > 0 ? [rest[0], [...rest.slice(1), '--help']] : [first, rest];
  if (command !== undefined && !command.startsWith('-') && wantsHelp(args)) {
    const help = commandHelp(USAGE, command, args, command === 'start' || command === 'mcp' ? ENV_NOTE : '');
    if (help !== null) {
      stdout(help);
      return 0;
    }
  }
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      stdout(USAGE);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-v') {
      stdout(SERVER_VERSION);
      return 0;
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!run) throw new UsageError(`unknown command "${command}" (${Object.keys(COMMANDS).join(', ')}; see --help)`);
    const code = await run(args);
    return typeof code === 'number' ? code : 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`outreach: ${selfNamed(cliAdvice(err.message))}\n`);
      return 2;
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      process.stderr.write('outreach: --port: the address is already in use; pick another port\n');
      return 2;
    }
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      process.stderr.write(`outreach: --host/--port: cannot listen there (${code})\n`);
      return 2;
    }
    process.stderr.write(`outreach: ${command} failed: ${selfNamed(cliAdvice((err as Error).message?.split('\n')[0] ?? 'unknown error'))}\n`);
    return 1;
  }
}
