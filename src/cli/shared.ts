import { randomUUID } from 'node:crypto';
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { resolveSettings, selfNamed, UsageError, type SettingFlags } from '../config.js';
import { ApiError } from '../core/errors.js';
import { createLogger } from '../log.js';
import { closeContext, type Ctx } from '../core/context.js';
import { getWorkspace } from '../core/workspace/get.js';
import { createContext } from '../server.js';
import type { Tool } from '../tools/define.js';
import { callTool } from '../tools/pipeline.js';
import { auditedTransaction, type AuditedCall } from '../core/audit/scope.js';

export type Options = NonNullable<ParseArgsConfig['options']>;

/** parseArgs with its errors turned into one-line usage errors that name the flag. */
export function parse<O extends Options>(args: string[], options: O, positionals = 0) {
  try {
    const joined = joinNegativeValues(args, options);
    const parsed = parseArgs({
      args: positionals > 0 ? negativePositionals(joined, options) : joined,
      options,
      strict: true,
      allowPositionals: positionals > 0,
    });
    if (parsed.positionals.length > positionals) throw new UsageError(`unexpected argument "${parsed.positionals[positionals]}"`);
    return parsed;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const message = (err as Error).message.split('\n')[0] ?? 'bad arguments';
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/, ''));
  }
}

/** A negative number, which parseArgs would read as an option. */
const NEGATIVE = /^-\d|^-\.\d/;

/**
 * `--sim-speed -1` as `--sim-speed=-1`: parseArgs calls a value that starts with a dash
 * ambiguous, and its message names neither the value nor what is wrong with it. Joined, the
 * value reaches the flag's own check ("--sim-speed: "-1" must be a positive number").
 */
function joinNegativeValues(args: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg === '--') return [...out, ...args.slice(i)];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && NEGATIVE.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * `credits add -5`: a negative number where an argument goes is that argument, not an unknown
 * option `-5`, so it reaches the argument's own check ("N: "-5" must be a whole number from 1
 * to 10,000,000"). The flags stay in front and the arguments follow `--`, in their order.
 */
function negativePositionals(args: string[], options: Options): string[] {
  if (!args.some((a) => NEGATIVE.test(a))) return args;
  const flags: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      rest.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || NEGATIVE.test(arg)) {
      rest.push(arg);
      continue;
    }
    flags.push(arg);
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    if (name !== undefined && options[name]?.type === 'string' && i + 1 < args.length) flags.push(args[++i]!);
  }
  return [...flags, '--', ...rest];
}

/** The CLI command that lists what an API tool lists. */
const LIST_COMMANDS: Record<string, string> = {
  list_campaigns: 'npx outreach campaigns list',
  list_agents: 'npx outreach agents list',
  list_accounts: 'npx outreach accounts list',
};

/**
 * A domain message's advice as the operator follows it in this CLI: "Call list_campaigns (GET
 * /campaigns) for valid ids" names the command that lists them; a lead id is found on the
 * dashboard's Leads page, as the CLI lists no leads.
 */
export function cliAdvice(text: string): string {
  return text
    .replace(/Call (list_\w+) \(GET [^)]*\) for valid ids(, or connect_account first)?/, (whole, tool: string, connect: string | undefined) => {
      const command = LIST_COMMANDS[tool];
      if (command === undefined) return whole;
      return `List them with: ${command}${connect ? '; add one with: npx outreach accounts connect' : ''}`;
    })
    .replace(/Use a lead id from list_leads/, "Find the lead's id on the dashboard's Leads page");
}

/** A line to standard output, naming this CLI as the user runs it (see selfNamed). */
export const stdout = (text: string): void => void process.stdout.write(`${selfNamed(text)}\n`);

/** A file a flag names, which must be there and be a file (a folder is named as such, not read). */
export function requireFile(flag: string, path: string): string {
  if (!existsSync(path)) throw new UsageError(`${flag}: ${path} does not exist`);
  if (!statSync(path).isFile()) throw new UsageError(`${flag}: ${path} is not a file`);
  return path;
}

/** Rows as a plain-text table, the first row the header: columns padded to their widest cell. */
export function table(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    stdout(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}

/**
 * What opening a database at `dbPath` would create: the file (with its -wal, -shm and -journal)
 * and the first folder on its way that does not exist yet. Null when the file exists (or lives
 * in memory): opening it creates nothing.
 */
export interface NewDatabase {
  file: string;
  folder: string | null;
}

export function newDatabaseAt(dbPath: string): NewDatabase | null {
  if (dbPath === ':memory:' || existsSync(dbPath)) return null;
  let folder: string | null = null;
  for (let dir = dirname(resolve(dbPath)); !existsSync(dir); dir = dirname(dir)) folder = dir;
  return { file: dbPath, folder };
}

/** Removes what a refused command created by opening a database that was not there: it writes nothing. Close the database first. */
export function removeNewDatabase(created: NewDatabase | null): void {
  if (!created) return;
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${created.file}${suffix}`, { force: true });
  if (created.folder) rmSync(created.folder, { recursive: true, force: true });
}

/** The database named by the flags, opened; with `mustExist`, a missing file is a usage error. */
function openDb(flags: string | undefined | SettingFlags, opts: { mustExist?: boolean }): { ctx: Ctx; created: NewDatabase | null } {
  const settings = resolveSettings(typeof flags === 'object' ? flags : { db: flags });
  if (opts.mustExist && !existsSync(settings.dbPath)) {
    throw new UsageError(`--db: ${settings.dbPath} does not exist; run npx outreach seed or npx outreach start first`);
  }
  const created = newDatabaseAt(settings.dbPath);
  return { ctx: createContext({ ...settings, env: 'development' }, createLogger('warn')), created };
}

/**
 * Runs `fn` on the database named by the flags. With `mustExist`, a missing database file is a
 * usage error instead of a new empty database, so a read or an edit with a mistyped --db
 * writes nothing.
 */
export function withDb(flags: string | undefined | SettingFlags, fn: (ctx: Ctx) => void, opts: { mustExist?: boolean } = {}): void {
  const { ctx, created } = openDb(flags, opts);
  let done = false;
  try {
    fn(ctx);
    done = true;
  } finally {
    closeContext(ctx);
    // A refused command on a database that was not there leaves none behind.
    if (!done) removeNewDatabase(created);
  }
}

/** withDb for a command that awaits (one that calls a tool through `operate`). */
export async function withDbAsync(
  flags: string | undefined | SettingFlags,
  fn: (ctx: Ctx) => Promise<void>,
  opts: { mustExist?: boolean } = {},
): Promise<void> {
  const { ctx, created } = openDb(flags, opts);
  let done = false;
  try {
    await fn(ctx);
    done = true;
  } finally {
    closeContext(ctx);
    if (!done) removeNewDatabase(created);
  }
}

/** The workspace's cursor secret, for the keyset list verbs; a database with no workspace is a usage error. */
export function workspaceSecret(ctx: Ctx): string {
  const ws = getWorkspace(ctx);
  if (!ws) throw new UsageError('--db: the database has no workspace yet; run npx outreach start or npx outreach seed first');
  return ws.cursorSecret;
}

/** `--limit N` of a paged listing: a whole number from 1 to `max`, 50 when not given. */
export function pageLimit(raw: string | undefined, max: number): number {
  if (raw === undefined) return 50;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > max) throw new UsageError(`--limit: "${raw}" must be a whole number from 1 to ${max}`);
  return limit;
}

/** The `--idempotency-key` flag of a command whose tool takes a key. */
export const IDEMPOTENCY_FLAG = { 'idempotency-key': { type: 'string' } } satisfies Options;
/** How the pipeline's errors name that flag. */
export const IDEMPOTENCY_NAME = { idempotencyKey: '--idempotency-key' };

/**
 * A command as the operator's call through the one pipeline, as the dashboard makes it: the
 * tool's input validation, plan gate, idempotency and handler. With a key, a repeat of the same
 * command replays the first result and does nothing again (said on stderr, so --json stays
 * JSON). A refusal is thrown as the pipeline's error, for the command to word with its flags.
 */
export async function operate<T>(ctx: Ctx, tool: Tool, input: Record<string, unknown>, idempotencyKey?: string): Promise<T> {
  const outcome = await callTool(ctx, tool, { operator: true, requestId: randomUUID() }, { input, idempotencyKey });
  if (!outcome.ok) throw outcome.error;
  if (outcome.headers['Idempotent-Replayed'] === 'true') {
    process.stderr.write(`--idempotency-key ${idempotencyKey} was used before with the same arguments: this is its first result; nothing was done again.\n`);
  }
  return outcome.body as T;
}

/**
 * A domain error as a one-line usage error: the field the verb names becomes the flag or
 * argument the user typed (`url` → `--url`), and the message loses its field prefix.
 */
export function asUsageError(err: unknown, names: Record<string, string>): unknown {
  if (!(err instanceof ApiError)) return err;
  // "Give at least one of name, assignedTemplateId, …": the flags that set those fields.
  const fields = err.details.fields ?? [];
  if (err.message.startsWith('Give at least one of') && fields.length > 1) {
    const flags = [...new Set(fields.map((f) => names[f]).filter((f): f is string => f !== undefined))];
    if (flags.length > 0) return new UsageError(`give at least one of ${flags.join(', ')}`);
  }
  const field = err.details.fields?.[0];
  const root = field?.replace(/[[.].*$/, '');
  const name = root !== undefined ? names[root] : undefined;
  const text = err.message.replace(/^[\w.[\]]+: /, '').replace(/\.$/, '');
  return new UsageError(name !== undefined ? `${name}: ${text}` : text);
}

/**
 * A CLI write that is no tool call (keys, webhooks, login links), recorded in the audit trail
 * as the owner's: whoever runs the CLI holds the server's database, which is the owner's power.
 * `fn` runs in one transaction with its event: both commit, or neither. A verb that changed
 * nothing (revoking a revoked key) still leaves its one event: the owner asked for it.
 */
export function asOwner<T>(ctx: Ctx, what: Omit<AuditedCall, 'actor'>, fn: () => T): T {
  return auditedTransaction(ctx, { ...what, actor: { type: 'owner' } }, fn);
}
