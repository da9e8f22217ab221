import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Environment } from './core/context.js';
import { LimitsConfig } from './core/ratelimit/config.js';
import { describeIssue } from './core/validation.js';
import { EngineConfig } from './core/outreach/settings.js';
import { UNIPILE_SETTINGS, UnipileSection, type UnipileConfig } from './network/unipile/config.js';
import { DrafterConfig } from './network/drafter/index.js';
import { CrmConfig } from './core/crm/config.js';

/** Bad input to a command: printed as one line, exit code 2, nothing written. */
export class UsageError extends Error {}

/** The `--config FILE` JSON. Strict, so a misspelt key is named instead of ignored. */
export const ConfigFile = z.strictObject({
  host: z.string().min(1).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  db: z.string().min(1).optional(),
  env: z.enum(['development', 'production']).optional(),
  simSpeed: z.number().positive().optional(),
  /**
   * The address browsers use to reach the server behind a reverse proxy, e.g.
   * https://outreach.example.com: dashboard writes must come from it (or from the Host the
   * request names), and the login hints print it as `--base`.
   */
  publicUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://outreach.example.com' }).optional(),
  /**
   * A reverse proxy on this machine forwards the requests: the client's address is the one its
   * X-Forwarded-For names. Off, the address is the connection's, whatever a request claims.
   * Omitted, it is on exactly when publicUrl is set (the proxy setup of docs/operations.md).
   */
  trustProxy: z.boolean().optional(),
  /** Rate limits and network quotas; each omitted value is the spec's. See docs/rate-limits.md. */
  limits: LimitsConfig.optional(),
  engine: EngineConfig.optional(),
  webhooks: z
    .strictObject({
      /**
       * Host names (as written in endpoint URLs) that may resolve to loopback, private or
       * link-local addresses, e.g. a receiver inside the same private network. Never metadata.
       */
      allowHosts: z.array(z.string().trim().min(1).max(253)).default([]),
    })
    .optional(),
  /** The MCP tool set: read-only tools only, and/or a named subset. REST keeps every route. */
  tools: z
    .strictObject({
      readOnly: z.boolean().optional(),
      include: z.array(z.string().min(1)).min(1).optional(),
      /** Toolsets listed beyond the default tools, e.g. ["manage"]. */
      toolsets: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /** The production network provider; each key can also come from its UNIPILE_* variable. */
  unipile: UnipileSection.optional(),
  /** The optional model that rewrites new drafts (any OpenAI-compatible endpoint); absent, nothing calls a model. */
  drafter: DrafterConfig.optional(),
  /** The CRM the sync pushes leads to and pulls lifecycle changes from (HubSpot); absent, nothing CRM-related runs. */
  crm: CrmConfig.optional(),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

export interface Settings {
  host: string;
  port: number;
  /** Absolute (or `:memory:`), so every hint and client config that names it works from any folder. */
  dbPath: string;
  env: Environment;
  simSpeed: number;
  /** The server's public address behind a reverse proxy (OUTREACH_PUBLIC_URL or `publicUrl`); absent when none is configured. */
  publicUrl?: string;
  /**
   * Whether X-Forwarded-For from loopback names the client (OUTREACH_TRUST_PROXY or `trustProxy`;
   * by default, whether a public address is configured). Failed-login throttles key on it.
   */
  trustProxy?: boolean;
  /** OUTREACH_IMPORT_LEASE_SECONDS: how long a CSV import's importing mark lasts unless renewed (2..60 s; default 30). */
  importLeaseMs?: number;
  /** What is known of the Unipile config; production needs all of it (see productionGaps). Absent means none. */
  unipile?: Partial<UnipileConfig>;
  config: ConfigFile;
}

export const DEFAULTS = { host: '127.0.0.1', port: 3000, dbPath: './data/outreach.db', env: 'development', simSpeed: 1 } as const;

export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new UsageError(`--config: cannot read ${path}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`--config: ${path} is not valid JSON`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) throw new UsageError(`--config: ${path}: ${parsed.error.issues.map((i) => describeIssue(i)).join('; ')}`);
  return parsed.data;
}

export const parsePort = (raw: string, flag = '--port'): number => {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) throw new UsageError(`${flag}: "${raw}" is not a port number (0-65535)`);
  return Number(raw);
};

export const parseEnv = (raw: string, flag = '--env'): Environment => {
  if (raw !== 'development' && raw !== 'production') throw new UsageError(`${flag}: "${raw}" must be development or production`);
  return raw;
};

/** An import lease of 2 to 60 seconds: pause must work within a minute of an importer's death. */
export const parseLeaseSeconds = (raw: string, name: string): number => {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 2 || n > 60) throw new UsageError(`${name}: "${raw}" must be a whole number of seconds, 2 to 60`);
  return n * 1000;
};

export const parseSimSpeed = (raw: string, flag = '--sim-speed'): number => {
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(n > 0)) throw new UsageError(`${flag}: "${raw}" must be a positive number`);
  return n;
};

export interface SettingFlags {
  host?: string | undefined;
  port?: string | undefined;
  db?: string | undefined;
  env?: string | undefined;
  'sim-speed'?: string | undefined;
  config?: string | undefined;
}

/** Flag, then environment variable, then config file, then default. */
export function resolveSettings(flags: SettingFlags, vars: NodeJS.ProcessEnv = process.env): Settings {
  const pick = (flag: string | undefined, flagName: string, varName: string): { raw: string; name: string } | undefined => {
    if (flag !== undefined) return { raw: flag, name: flagName };
    const v = vars[varName];
    return v !== undefined && v !== '' ? { raw: v, name: varName } : undefined;
  };
  const configPath = pick(flags.config, '--config', 'OUTREACH_CONFIG');
  const config = configPath ? readConfigFile(configPath.raw) : {};
  const host = pick(flags.host, '--host', 'HOST');
  const port = pick(flags.port, '--port', 'PORT');
  const db = pick(flags.db, '--db', 'OUTREACH_DB');
  const env = pick(flags.env, '--env', 'OUTREACH_ENV');
  const speed = pick(flags['sim-speed'], '--sim-speed', 'OUTREACH_SIM_SPEED');
  if (host && host.raw.trim() === '') throw new UsageError(`${host.name}: must not be empty`);
  const publicUrl = pick(undefined, '', 'OUTREACH_PUBLIC_URL');
  const lease = pick(undefined, '', 'OUTREACH_IMPORT_LEASE_SECONDS');
  const trust = pick(undefined, '', 'OUTREACH_TRUST_PROXY');
  const resolvedUrl = publicUrl ? parsePublicUrl(publicUrl.raw, publicUrl.name) : config.publicUrl;
  return {
    ...(lease ? { importLeaseMs: parseLeaseSeconds(lease.raw, lease.name) } : {}),
    host: host?.raw ?? config.host ?? DEFAULTS.host,
    port: port ? parsePort(port.raw, port.name) : (config.port ?? DEFAULTS.port),
    dbPath: absoluteDbPath(db?.raw ?? config.db ?? DEFAULTS.dbPath),
    env: env ? parseEnv(env.raw, env.name) : (config.env ?? DEFAULTS.env),
    simSpeed: speed ? parseSimSpeed(speed.raw, speed.name) : (config.simSpeed ?? DEFAULTS.simSpeed),
    ...publicUrlSetting(resolvedUrl),
    trustProxy: trust ? parseTrustProxy(trust.raw, trust.name) : (config.trustProxy ?? resolvedUrl !== undefined),
    unipile: resolveUnipile(config.unipile ?? {}, vars),
    config,
  };
}

function parseTrustProxy(raw: string, name: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new UsageError(`${name}: "${raw}" must be 1 or 0 (true or false)`);
}

/** An http(s) origin with an optional path and no credentials, query or fragment; trailing slashes dropped. */
export function parsePublicUrl(raw: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag}: "${raw}" is not a URL (e.g. https://outreach.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag}: "${raw}" must be an http or https URL`);
  if (url.username || url.password || url.search || url.hash) {
    throw new UsageError(`${flag}: "${raw}" must be a plain origin with an optional path, no credentials, query or fragment`);
  }
  return url.href.replace(/\/+$/, '');
}

const publicUrlSetting = (url: string | undefined): { publicUrl?: string } => (url === undefined ? {} : { publicUrl: parsePublicUrl(url, 'publicUrl') });

/** Where the database file is, from the current folder; `:memory:` stays as it is. */
export const absoluteDbPath = (path: string): string => (path === ':memory:' ? path : resolve(path));

/** The CLI's own script (bin/outreach.js), from both `src/` (tests) and `dist/` (built). */
export const CLI_SCRIPT = fileURLToPath(new URL('../bin/outreach.js', import.meta.url));

/** A word for a shell command line, quoted only when it needs to be. */
export const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/**
 * The npx command of this very version (`npx -y outreach-mcp@0.1.0`) when the CLI runs from
 * npx's cache (`npx -y outreach-mcp`), else null. A path into that cache is no command to print:
 * it changes with each version and goes when the cache is cleared.
 */
export function npxCommand(script: string = CLI_SCRIPT): string | null {
  const real = realpathOrNull(script) ?? script;
  if (!real.split(sep).includes('_npx')) return null;
  // The package npx installed, as its package.json beside bin/ names it.
  const pkg = JSON.parse(readFileSync(join(dirname(dirname(real)), 'package.json'), 'utf8')) as { name: string; version: string };
  return `npx -y ${pkg.name}@${pkg.version}`;
}

/**
 * A message's `npx outreach …` as the user can run it: the CLI's texts name it as a clone runs it
 * (where `npx outreach` works), and when npx runs it from its cache that command is npx's own
 * (`npx -y outreach-mcp@<version> …`).
 */
export function selfNamed(text: string, viaNpx: string | null = npxCommand()): string {
  return viaNpx === null ? text : text.replaceAll('npx outreach ', `${viaNpx} `);
}

/**
 * How to run this CLI from any folder: `npx -y outreach-mcp@<version>` when npx runs it,
 * `outreach` when that name on PATH is this installation (npm install -g), else node and the
 * script's absolute path. `npx outreach` works only inside the repository, so it is never
 * printed as something to run.
 */
export function cliCommand(vars: NodeJS.ProcessEnv = process.env): string {
  const viaNpx = npxCommand();
  if (viaNpx) return viaNpx;
  const self = realpathOrNull(CLI_SCRIPT);
  for (const dir of (vars.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'outreach');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    // The first `outreach` on PATH is the one a shell runs: use it only if it is this one.
    return realpathOrNull(candidate) === self ? 'outreach' : `${shellWord(process.execPath)} ${shellWord(CLI_SCRIPT)}`;
  }
  return `${shellWord(process.execPath)} ${shellWord(CLI_SCRIPT)}`;
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** Whether the database is the one commands use when given no --db, from the current folder. */
export const isDefaultDb = (settings: Pick<Settings, 'dbPath'>): boolean => settings.dbPath === absoluteDbPath(DEFAULTS.dbPath);

/**
 * The login command as a signed-out visitor of the dashboard sees it. It names `--db` when the
 * server runs on another database, but not the path (the visitor is not signed in), and the
 * public address, which the visitor already knows.
 */
export function dashboardLoginHint(settings: Pick<Settings, 'dbPath' | 'publicUrl'>): string {
  const db = settings.dbPath === ':memory:' || isDefaultDb(settings) ? '' : " --db <the server's database file>";
  const base = settings.publicUrl ? ` --base ${shellWord(settings.publicUrl)}` : '';
  return `npx outreach login${db}${base}`;
}

/**
 * The key-creation command as an API caller without a valid key sees it in a 401: the command,
 * never the server's paths (the caller is not authenticated).
 */
export const publicKeyCommand = (env: Environment): string => `npx outreach keys create --env ${env === 'production' ? 'live' : 'test'}`;

/** The command that creates an API key this server accepts, as a user can paste it anywhere. */
export const keyCreateCommand = (settings: Pick<Settings, 'env' | 'dbPath'>, vars: NodeJS.ProcessEnv = process.env): string =>
  `${cliCommand(vars)} keys create --env ${settings.env === 'production' ? 'live' : 'test'} --db ${shellWord(settings.dbPath)}`;

/** Each Unipile setting from its environment variable, else the config file; validated alike. */
function resolveUnipile(section: UnipileSection, vars: NodeJS.ProcessEnv): Partial<UnipileConfig> {
  const out: Partial<UnipileConfig> = {};
  for (const { key, env } of UNIPILE_SETTINGS) {
    const raw = vars[env];
    if (raw !== undefined && raw !== '') {
      const parsed = UnipileSection.shape[key].safeParse(raw);
      // The message names the variable but never echoes its value: it may be a secret.
      if (!parsed.success) throw new UsageError(`${env}: ${parsed.error.issues[0]?.message ?? 'invalid value'}`);
      out[key] = raw;
    } else if (section[key] !== undefined) {
      out[key] = section[key];
    }
  }
  // Optional: where Unipile reports a finished hosted sign-in (connect_account in production).
  const publicUrl = vars.UNIPILE_PUBLIC_URL;
  if (publicUrl !== undefined && publicUrl !== '') {
    const parsed = UnipileSection.shape.publicUrl.safeParse(publicUrl);
    if (!parsed.success) throw new UsageError('UNIPILE_PUBLIC_URL: must be an http(s) URL, e.g. https://outreach.example.com');
    out.publicUrl = publicUrl;
  } else if (section.publicUrl !== undefined) {
    out.publicUrl = section.publicUrl;
  }
  return out;
}

/**
 * What production needs before it may start, one phrase per missing item; empty when ready.
 * Production runs on Unipile only, so each missing Unipile setting is named with the variable
 * and config key that would supply it.
 */
export function productionGaps(settings: Pick<Settings, 'env' | 'unipile'>): string[] {
  if (settings.env !== 'production') return [];
  return UNIPILE_SETTINGS.filter(({ key }) => !settings.unipile?.[key]).map(({ key, env, label }) => `${label} (${env} or unipile.${key} in --config)`);
}
