import { existsSync, readFileSync, createReadStream, statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { resolveSettings, UsageError, type SettingFlags } from '../config.js';
import { listAccounts, type Account } from '../core/accounts/list.js';
import { ConnectAccountInput, UpdateAccountInput, type ConnectAccountResult } from '../core/accounts/manage.js';
import { CreateAgentInput, listAgents, UpdateAgentInput, type Agent, type AgentPreview } from '../core/agents/agents.js';
import { walkSteps, type Step } from '../core/agents/steps.js';
import { listCampaigns, type Campaign } from '../core/campaigns/campaign.js';
import { CreateCampaignInput, UpdateCampaignInput } from '../core/campaigns/manage.js';
import { withAudit } from '../core/audit/scope.js';
import { closeContext, type Ctx } from '../core/context.js';
import { exclusionUrlsFromText, listExclusions } from '../core/exclusions/exclusions.js';
import {
  importLeads,
  parseMapOption,
  previewImport,
  rejectedRowsCsv,
  type ImportPreview,
  type ImportProgress,
  type ImportResult,
  type RowReport,
} from '../core/imports/csv.js';
import { creditsAddCommand } from './credits.js';
import { issueFields, issueMessage } from '../core/validation.js';
import { ApiError } from '../core/errors.js';
import { createLogger } from '../log.js';
import { createContext } from '../server.js';
import { connectAccountTool } from '../tools/connect-account.js';
import { createAgentTool } from '../tools/create-agent.js';
import { createCampaignTool } from '../tools/create-campaign.js';
import { addExclusionsTool, removeExclusionsTool } from '../tools/operator/exclusions.js';
import { previewAgentTool } from '../tools/preview-agent.js';
import { updateAccountTool } from '../tools/update-account.js';
import { ConnectMailboxInput, listMailboxes, UpdateMailboxInput, type Mailbox } from '../core/mailboxes/mailbox.js';
import { connectMailboxTool } from '../tools/connect-mailbox.js';
import { updateMailboxTool } from '../tools/update-mailbox.js';
import { updateAgentTool } from '../tools/update-agent.js';
import { updateCampaignTool } from '../tools/update-campaign.js';
import { asUsageError, IDEMPOTENCY_FLAG, IDEMPOTENCY_NAME, operate, parse, requireFile, stdout, table, workspaceSecret, type Options } from './shared.js';
import type { z } from 'zod';

export const MANAGE_USAGE = `  campaigns list [--json] [--db PATH]
                        List campaigns, newest first.
  campaigns create --name N [--agent ID] [--senders ID,ID...] [--mailbox ID]... [--approval off|required] [--idempotency-key K] [--db PATH]
                        Create a READY_TO_SEND campaign, optionally with its agent, sending
                        accounts and the mailboxes that send its email steps (--mailbox once
                        per mailbox); approval required holds every note and message as a draft to
                        approve. With --idempotency-key, running the same command again within
                        24 h creates nothing more and prints the first result (as on the API).
  campaigns update ID [--name N] [--agent ID|none] [--senders ID,ID...|none] [--mailbox ID|none]... [--approval off|required] [--db PATH]
                        Rename a campaign or change its agent, senders or mailboxes (the
                        --mailbox flags replace the list; none clears it; pause a running one
                        first), or turn approval on or off (off sends the waiting drafts as they
                        stand).
  agents list [--json] [--db PATH]
                        List agents with their account and sequence length.
  agents create --file F [--idempotency-key K] [--db PATH]
                        Create an agent from a JSON file: { name, accountId, connectionNote, messages }
                        or { name, accountId, steps } (docs/sequences.md).
  agents update ID --file F [--db PATH]
                        Replace the fields the JSON file gives (name, accountId, steps, or connectionNote and messages).
  agents preview ID --lead LEAD [--db PATH]
                        Print the note and messages exactly as that lead would receive them.
  accounts list [--json] [--db PATH] [--config FILE]
                        List accounts with today's counters, their limits and any running warm-up.
  accounts connect --name N [--sales-navigator] [--connection-limit N] [--message-limit N] [--visit-limit N] [--like-limit N] [--warm-up true|false] [--idempotency-key K] [--db PATH] [--env E] [--config FILE]
                        Add an account: simulated and connected in development; in production,
                        prints the sign-in link for the person to open. It warms up (low limits
                        rising daily) unless --warm-up false or the config's engine.warmUp.onConnect is false.
  accounts update ID [--name N] [--connection-limit N] [--message-limit N] [--visit-limit N] [--like-limit N] [--active true|false] [--warm-up true|false] [--db PATH] [--config FILE]
                        Change an account's name or daily limits, stop (false) or resume its sending,
                        or end (false) or start (true) its warm-up.
  mailboxes list [--json] [--db PATH] [--config FILE]
                        List email mailboxes: status, emails sent today against today's limit, warm-up.
  mailboxes add --name N --address A (--smtp-host H [--smtp-port 587] [--smtp-secure true|false] [--smtp-user U] --smtp-password-env VAR [--imap-host H --imap-port 993 --imap-password-env VAR ...] | --sim) [--from-name N] [--daily-limit N] [--warm-up true|false] [--spacing SECONDS] [--time-zone TZ] [--hours always|HH:MM-HH:MM] [--db PATH] [--env E] [--config FILE]
                        Add a mailbox once its SMTP (and IMAP) server accepts the login. The
                        passwords stay in the environment variables named; none is stored.
                        --sim adds a simulated mailbox (development). docs/email.md.
  mailboxes update ID [the add flags] [--active true|false] [--db PATH] [--config FILE]
                        Change a mailbox; new servers are logged in to first. --active false pauses it.
  import --campaign ID --file F.csv [--map COL=field,...] [--dry-run] [--json] [--rejected OUT.csv] [--db PATH]
                        Import leads from a CSV (comma, semicolon or tab; header row required).
                        --dry-run writes nothing and says the credits needed, available and short.
                        Rows not created are named by line; --rejected writes them to a new CSV
                        (their columns and a reason) to fix and import again. A malformed line
                        stops the import there (exit 1); what went in before it stays.
  exclusions list [--json] [--db PATH]
                        List the workspace exclusion list.
  exclusions add URL... [--db PATH]
                        Exclude profiles everywhere: matching leads in every campaign stop.
  exclusions remove URL... [--db PATH]
                        Take profiles off the list (leads already excluded stay excluded).
  exclusions import --file F [--db PATH]
                        Add every URL of a file (one per line, or a CSV with a profile URL column).`;

const DB = { db: { type: 'string' } } satisfies Options;
const JSON_FLAG = { json: { type: 'boolean' } } satisfies Options;

/** Opens the database named by the flags; it must exist, so a mistyped --db writes nothing. */
async function withCtx<T>(flags: SettingFlags, fn: (ctx: Ctx) => T | Promise<T>, opts: { env?: boolean } = {}): Promise<T> {
  const settings = resolveSettings(flags);
  if (!existsSync(settings.dbPath)) throw new UsageError(`--db: ${settings.dbPath} does not exist; run npx outreach start or npx outreach seed first`);
  const ctx = createContext(opts.env ? settings : { ...settings, env: 'development' }, createLogger('warn'));
  try {
    return await fn(ctx);
  } finally {
    closeContext(ctx);
  }
}

/** Domain errors become one line naming the user's flag or argument. */
async function run<T>(names: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asUsageError(err, names);
  }
}

/** Input through the verb's own schema, so the CLI refuses exactly what the API refuses. */
function checked<S extends z.ZodType>(schema: S, value: unknown, names: Record<string, string>): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // The fields in full (an unknown key's own name included: `nme`, `messages[0].foo`); none for the whole input.
    const fields = issueFields(issue).filter((f) => f !== '');
    const root = (fields[0] ?? '').replace(/[[.].*$/, '');
    const fromFile = Object.values(names).some((n) => n.startsWith('--file'));
    const name = names[root] ?? (fromFile ? '--file' : root);
    // Inside a file, the whole path names the field (`--file: messages[0].delayHours`, `--file: nme`).
    const where = name.startsWith('--file') && fields.length > 0 ? `--file: ${fields.join(', ')}` : name;
    throw new UsageError(`${where}: ${issueMessage(issue)}`);
  }
  return parsed.data;
}

function int(raw: string | undefined, flag: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`${flag}: "${raw}" is not a whole number`);
  return Number(raw);
}

function bool(raw: string | undefined, flag: string): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new UsageError(`${flag}: "${raw}" must be true or false`);
}

/**
 * An agent's sequence in a line: how many steps in all, and the top level's kinds in order, an
 * `if` with its condition (`3 steps: email, if email_replied, email`). The main path's message
 * count alone said 0 for a sequence of emails or visits.
 */
function stepsSummary(steps: readonly Step[]): string {
  const all = walkSteps(steps).length;
  const top = steps.map((s) => (s.kind === 'if' ? `if ${s.condition}` : s.kind)).join(', ');
  return `${all} step${all === 1 ? '' : 's'}${all > steps.length ? ` (${all - steps.length} in branches)` : ''}: ${top}`;
}

function readJsonFile(path: string | undefined, flag = '--file'): unknown {
  if (!path) throw new UsageError(`${flag}: required (a JSON file with the agent's fields)`);
  requireFile(flag, path);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    throw new UsageError(`${flag}: ${path} is not valid JSON`);
  }
}

/** Every page of a keyset list. */
function allPages<T>(page: (cursor: string | undefined) => { items: T[]; nextCursor: string | null }): T[] {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const p = page(cursor);
    out.push(...p.items);
    cursor = p.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return out;
}

function subcommand(name: string, sub: string | undefined, known: string[]): never {
  throw new UsageError(sub ? `${name}: unknown subcommand "${sub}" (${known.join(', ')})` : `${name}: a subcommand is required (${known.join(', ')})`);
}

/** A keyset list verb of the workspace: `listCampaigns(ctx, secret, { limit, cursor })` and its kin. */
type PagedList<K extends string, T> = (
  ctx: Ctx,
  secret: string,
  input: { limit: number; cursor?: string | undefined },
) => { [P in K]: T[] } & { nextCursor: string | null };

/** Every item of a keyset list verb, read a hundred a page. */
const everyPage =
  <K extends string, T>(list: PagedList<K, T>, key: K) =>
  (ctx: Ctx): T[] => {
    const secret = workspaceSecret(ctx);
    return allPages((cursor) => {
      const p = list(ctx, secret, { limit: 100, cursor });
      return { items: p[key], nextCursor: p.nextCursor };
    });
  };

/**
 * What a `list` subcommand shows: the JSON key its items go under with --json, the line when
 * there are none, and the table's columns as header and cell. `config` takes --config (for
 * the lists whose rows depend on the config's limits).
 */
interface ListSpec<T> {
  key: string;
  read: (ctx: Ctx) => T[];
  empty: string;
  columns: ReadonlyArray<readonly [header: string, cell: (item: T) => string]>;
  config?: boolean;
}

/** Runs a `list` subcommand: its flags, its read, and its output as a table or with --json as `{ key: [...] }`. */
function listCommand<T>(rest: string[], spec: ListSpec<T>): Promise<void> {
  const { values } = parse(rest, { ...DB, ...JSON_FLAG, ...(spec.config ? { config: { type: 'string' } } : {}) } as typeof DB &
    typeof JSON_FLAG & { config: { type: 'string' } });
  return withCtx(values, (ctx) => {
    const list = spec.read(ctx);
    if (values.json) return stdout(JSON.stringify({ [spec.key]: list }, null, 2));
    if (list.length === 0) return stdout(spec.empty);
    table([spec.columns.map(([header]) => header), ...list.map((item) => spec.columns.map(([, cell]) => cell(item)))]);
  });
}

export async function campaigns(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return listCommand<Campaign>(rest, {
        key: 'campaigns',
        read: everyPage(listCampaigns, 'campaigns'),
        empty: 'No campaigns. Create one with: npx outreach campaigns create --name "Q1 outreach"',
        columns: [
          ['ID', (c) => c.id],
          ['NAME', (c) => c.name],
          ['STATUS', (c) => c.status],
          ['LEADS', (c) => String(c.totalLeads)],
          ['AGENT', (c) => c.assignedTemplateId ?? '-'],
        ],
        config: true,
      });
    case 'create': {
      const { values } = parse(rest, { ...DB, ...IDEMPOTENCY_FLAG, ...CAMPAIGN_FLAGS });
      if (values.name === undefined) throw new UsageError('--name: required');
      const input = checked(CreateCampaignInput, campaignFields(values, values.agent), CAMPAIGN_NAMES);
      return withCtx(values, (ctx) =>
        run({ ...CAMPAIGN_NAMES, ...IDEMPOTENCY_NAME }, async () => {
          const c = await operate<Campaign>(ctx, createCampaignTool, input, values['idempotency-key']);
          stdout(`Created campaign ${c.id} (${c.name}), ${c.status}.`);
        }),
      );
    }
    case 'update': {
      const { values, positionals } = parse(rest, { ...DB, ...CAMPAIGN_FLAGS }, 1);
      const id = positionals[0];
      if (!id) throw new UsageError('campaigns update: the campaign ID is required (see npx outreach campaigns list)');
      const input = checked(UpdateCampaignInput, campaignFields(values, values.agent === 'none' ? null : values.agent), CAMPAIGN_NAMES);
      return withCtx(values, (ctx) =>
        run({ ...CAMPAIGN_NAMES, campaignId: 'ID' }, async () => {
          const c = await operate<Campaign>(ctx, updateCampaignTool, { campaignId: id, ...input });
          const senders = c.senderAccountIds.length ? `, senders ${c.senderAccountIds.join(', ')}` : '';
          const mailboxes = c.mailboxIds?.length ? `, mailboxes ${c.mailboxIds.join(', ')}` : '';
          stdout(`Updated campaign ${c.id}: ${c.name}, agent ${c.assignedTemplateId ?? 'none'}${senders}${mailboxes}, approval ${c.approval}, ${c.status}.`);
        }),
      );
    }
    default:
      subcommand('campaigns', sub, ['list', 'create', 'update']);
  }
}

/** `--senders a,b` as a list; `none` clears it. A sender's error names the flag and its place (`--senders[1]`). */
const senderList = (raw: string | undefined): string[] | undefined =>
  raw === undefined
    ? undefined
    : raw === 'none'
      ? []
      : raw
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
/** `--mailbox a --mailbox b` as a list, in the order given; a lone `--mailbox none` clears it. */
const mailboxList = (raw: string[] | undefined): string[] | undefined => {
  if (raw === undefined) return undefined;
  if (raw.length === 1 && raw[0] === 'none') return [];
  if (raw.includes('none')) throw new UsageError('--mailbox: none clears the mailboxes and cannot be given with a mailbox id');
  return raw.map((s) => s.trim());
};
const CAMPAIGN_FLAGS = {
  name: { type: 'string' },
  agent: { type: 'string' },
  senders: { type: 'string' },
  mailbox: { type: 'string', multiple: true },
  approval: { type: 'string' },
} satisfies Options;

/** The campaign flags as the verb's fields; `agent` is --agent as the command reads it (`none` is null for update). */
function campaignFields(
  values: { name?: string | undefined; senders?: string | undefined; mailbox?: string[] | undefined; approval?: string | undefined },
  agent: string | null | undefined,
): Record<string, unknown> {
  return {
    name: values.name,
    assignedTemplateId: agent,
    senderAccountIds: senderList(values.senders),
    mailboxIds: mailboxList(values.mailbox),
    approval: values.approval,
  };
}
const CAMPAIGN_NAMES = { name: '--name', assignedTemplateId: '--agent', senderAccountIds: '--senders', mailboxIds: '--mailbox', approval: '--approval' };

const AGENT_FIELDS = {
  name: '--file: name',
  accountId: '--file: accountId',
  connectionNote: '--file: connectionNote',
  messages: '--file: messages',
  steps: '--file: steps',
};

/** An agent file's error names the field inside the file in full (`--file: messages[2].text: …`). */
async function runAgentFile<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const field = err.details.fields?.[0];
    const text = err.message.replace(/^[\w.[\]]+: /, '').replace(/\.$/, '');
    if (field === 'idempotencyKey') throw new UsageError(`${IDEMPOTENCY_NAME.idempotencyKey}: ${text}`);
    throw new UsageError(field ? `--file: ${field}: ${text}` : text);
  }
}

export async function agents(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return listCommand<Agent>(rest, {
        key: 'agents',
        read: everyPage(listAgents, 'agents'),
        empty: 'No agents. Create one with: npx outreach agents create --file agent.json',
        columns: [
          ['ID', (a) => a.id],
          ['NAME', (a) => a.name],
          ['ACCOUNT', (a) => a.accountId ?? '-'],
          ['NOTE', (a) => (a.connectionNote ? 'yes' : 'no')],
          ['MESSAGES', (a) => String(a.messages.length)],
          ['STEPS', (a) => String(walkSteps(a.steps).length)],
        ],
        config: true,
      });
    case 'create':
    case 'update': {
      const { values, positionals } = parse(rest, { ...DB, file: { type: 'string' }, ...(sub === 'create' ? IDEMPOTENCY_FLAG : {}) }, sub === 'update' ? 1 : 0);
      const key = (values as { 'idempotency-key'?: string })['idempotency-key'];
      const id = positionals[0];
      if (sub === 'update' && !id) throw new UsageError('agents update: the agent ID is required (see npx outreach agents list)');
      const json = readJsonFile(values.file);
      return withCtx(values, (ctx) =>
        runAgentFile(async () => {
          const a =
            sub === 'create'
              ? await operate<Agent>(ctx, createAgentTool, checked(CreateAgentInput, json, AGENT_FIELDS), key)
              : await operate<Agent>(ctx, updateAgentTool, { agentId: id as string, ...checked(UpdateAgentInput, json, AGENT_FIELDS) });
          stdout(
            `${sub === 'create' ? 'Created' : 'Updated'} agent ${a.id} (${a.name}): account ${a.accountId ?? 'none'}, ${stepsSummary(a.steps)}; ${a.messages.length} message(s) on the main path.`,
          );
        }),
      );
    }
    case 'preview': {
      const { values, positionals } = parse(rest, { ...DB, lead: { type: 'string' }, ...JSON_FLAG }, 1);
      const id = positionals[0];
      if (!id) throw new UsageError('agents preview: the agent ID is required (see npx outreach agents list)');
      if (!values.lead) throw new UsageError('--lead: required (a lead id of any campaign)');
      return withCtx(values, (ctx) =>
        run({ leadId: '--lead', agentId: 'ID' }, async () => {
          const p = await operate<AgentPreview>(ctx, previewAgentTool, { agentId: id, leadId: values.lead as string });
          if (values.json) return stdout(JSON.stringify(p, null, 2));
          stdout(`Connection note: ${p.connectionNote ?? '(none)'}`);
          for (const [i, m] of p.messages.entries()) stdout(`\nMessage ${i + 1}:\n${m}`);
        }),
      );
    }
    default:
      subcommand('agents', sub, ['list', 'create', 'update', 'preview']);
  }
}

const ACCOUNT_FLAGS = {
  name: { type: 'string' },
  'connection-limit': { type: 'string' },
  'message-limit': { type: 'string' },
  'visit-limit': { type: 'string' },
  'like-limit': { type: 'string' },
  'warm-up': { type: 'string' },
  config: { type: 'string' },
} satisfies Options;
const ACCOUNT_NAMES = {
  name: '--name',
  connectionRequestLimit: '--connection-limit',
  messageLimit: '--message-limit',
  profileVisitLimit: '--visit-limit',
  postReactionLimit: '--like-limit',
  active: '--active',
  hasSalesNavigator: '--sales-navigator',
  warmUp: '--warm-up',
};

/** The daily-limit flags as the verb's fields. */
function accountLimits(values: { [K in 'connection-limit' | 'message-limit' | 'visit-limit' | 'like-limit']?: string | undefined }) {
  return {
    connectionRequestLimit: int(values['connection-limit'], '--connection-limit'),
    messageLimit: int(values['message-limit'], '--message-limit'),
    profileVisitLimit: int(values['visit-limit'], '--visit-limit'),
    postReactionLimit: int(values['like-limit'], '--like-limit'),
  };
}

/**
 * An account's limits in words: the configured ones, and while a warm-up runs, its day and the
 * lower limits in force today, since the configured number alone would promise sends that the
 * engine holds back.
 */
function limitsText(a: Account, state = ''): string {
  const configured = `${a.limits.connectionRequestLimit} invitations and ${a.limits.messageLimit} messages a day${state}`;
  return a.warmUp
    ? `${configured}; warming up, day ${a.warmUp.day} of ${a.warmUp.days}: ${a.today.connectionRequestLimit} invitations and ${a.today.messageLimit} messages today`
    : configured;
}

/** A warm-up's `day N of M`, or `-` when none runs. */
const warmUpDay = (w: { day: number; days: number } | null | undefined): string => (w ? `day ${w.day} of ${w.days}` : '-');

/** `sent/limit today`, and the configured limit when today's is lower (warm-up or a full week). */
const counter = (sent: number, today: number, configured: number): string => `${sent}/${today}${today === configured ? '' : ` of ${configured}`}`;

export async function accounts(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return listCommand<Account>(rest, {
        key: 'accounts',
        read: everyPage(listAccounts, 'accounts'),
        empty: 'No accounts. Add one with: npx outreach accounts connect --name "My LinkedIn"',
        columns: [
          ['ID', (a) => a.id],
          ['NAME', (a) => a.name],
          ['STATUS', (a) => a.status],
          ['ACTIVE', (a) => (a.active ? 'yes' : 'no')],
          ['INVITES TODAY', (a) => counter(a.today.connectionRequestsSent, a.today.connectionRequestLimit, a.limits.connectionRequestLimit)],
          ['MESSAGES TODAY', (a) => counter(a.today.messagesSent, a.today.messageLimit, a.limits.messageLimit)],
          ['WARM-UP', (a) => warmUpDay(a.warmUp)],
        ],
        config: true,
      });
    case 'connect': {
      const { values } = parse(rest, { ...DB, ...ACCOUNT_FLAGS, ...IDEMPOTENCY_FLAG, 'sales-navigator': { type: 'boolean' }, env: { type: 'string' } });
      if (values.name === undefined) throw new UsageError('--name: required');
      const input = checked(
        ConnectAccountInput,
        { name: values.name, hasSalesNavigator: values['sales-navigator'], ...accountLimits(values), warmUp: bool(values['warm-up'], '--warm-up') },
        ACCOUNT_NAMES,
      );
      return withCtx(
        values,
        (ctx) =>
          run({ ...ACCOUNT_NAMES, ...IDEMPOTENCY_NAME }, async () => {
            const { account, connectUrl } = await operate<ConnectAccountResult>(ctx, connectAccountTool, input, values['idempotency-key']);
            stdout(`Added account ${account.id} (${account.name}), ${account.status}: ${limitsText(account)}.`);
            if (connectUrl) stdout(`Open this link to sign in to LinkedIn; the account is connected when you finish:\n${connectUrl}`);
          }),
        { env: true },
      );
    }
    case 'update': {
      const { values, positionals } = parse(rest, { ...DB, ...ACCOUNT_FLAGS, active: { type: 'string' } }, 1);
      const id = positionals[0];
      if (!id) throw new UsageError('accounts update: the account ID is required (see npx outreach accounts list)');
      const input = checked(
        UpdateAccountInput,
        { name: values.name, ...accountLimits(values), active: bool(values.active, '--active'), warmUp: bool(values['warm-up'], '--warm-up') },
        ACCOUNT_NAMES,
      );
      return withCtx(values, (ctx) =>
        run({ ...ACCOUNT_NAMES, accountId: 'ID' }, async () => {
          const a = await operate<Account>(ctx, updateAccountTool, { accountId: id, ...input });
          stdout(`Updated account ${a.id} (${a.name}): ${limitsText(a, a.active ? ', active' : ', inactive (sends nothing)')}.`);
        }),
      );
    }
    default:
      subcommand('accounts', sub, ['list', 'connect', 'update']);
  }
}

const summaryLine = (r: Pick<ImportResult, 'summary' | 'creditsCharged'>): string => {
  const s = r.summary;
  return `${s.total} row(s): ${s.created} created, ${s.duplicate} duplicate, ${s.excluded} excluded, ${s.validation_error} invalid, ${s.insufficient_credits} without credits, ${s.failed} failed; ${r.creditsCharged} credit(s) charged.`;
};

/** A bar on a terminal; otherwise a line every 1,000 rows, on stderr so `--json` stays clean. */
async function progressReporter(totalBytes: number | null): Promise<{ update(p: ImportProgress): void; stop(): void }> {
  if (process.stderr.isTTY) {
    // Only a terminal draws a bar; the server's start never loads it.
    const { default: cliProgress } = await import('cli-progress');
    const bar = new cliProgress.SingleBar(
      { format: 'Importing [{bar}] {value} rows | {created} created, {duplicate} duplicate', stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    bar.start(totalBytes ?? 0, 0, { created: 0, duplicate: 0 });
    return {
      update: (p) => {
        bar.setTotal(Math.max(p.rowsDone, bar.getTotal()));
        bar.update(p.rowsDone, { created: p.summary.created, duplicate: p.summary.duplicate });
      },
      stop: () => bar.stop(),
    };
  }
  let last = 0;
  return {
    update: (p) => {
      if (p.rowsDone - last >= 1000) {
        last = p.rowsDone;
        process.stderr.write(
          `imported ${p.rowsDone} rows: ${p.summary.created} created, ${p.summary.duplicate} duplicate, ${p.creditsCharged} credit(s) charged\n`,
        );
      }
    },
    stop: () => undefined,
  };
}

/** Rough row count for the bar: the file's lines (a quoted newline makes it a slight overestimate). */
function estimateRows(path: string): number | null {
  try {
    if (statSync(path).size > 50 * 1024 * 1024) return null;
    const text = readFileSync(path, 'utf8');
    return Math.max(0, text.split('\n').filter((l) => l.trim() !== '').length - 1);
  } catch {
    return null;
  }
}

/** At most this many rows not created are listed on a terminal; --json and --rejected give all. */
const ROWS_SHOWN = 20;

function printRows(rows: readonly RowReport[]): void {
  if (rows.length === 0) return;
  stdout(`Rows not created${rows.length > ROWS_SHOWN ? ` (the first ${ROWS_SHOWN} of ${rows.length}; all with --json or --rejected FILE)` : ''}:`);
  for (const r of rows.slice(0, ROWS_SHOWN)) stdout(`  line ${r.line}: ${r.status}${r.field ? ` (${r.field})` : ''}: ${r.message}`);
}

const jsonRows = (rows: readonly RowReport[]) => rows.map(({ cells: _cells, ...r }) => r);

/** Runs `outreach import`; 1 when a malformed line stopped it (what went in before it stays), else 0. */
export async function importCommand(args: string[]): Promise<number> {
  const { values } = parse(args, {
    ...DB,
    ...JSON_FLAG,
    campaign: { type: 'string' },
    file: { type: 'string' },
    map: { type: 'string' },
    rejected: { type: 'string' },
    'dry-run': { type: 'boolean' },
  });
  if (!values.campaign) throw new UsageError('--campaign: required (a campaign id; see npx outreach campaigns list)');
  if (!values.file) throw new UsageError('--file: required (the CSV file to import)');
  requireFile('--file', values.file);
  if (values.rejected !== undefined && (values.rejected === '' || existsSync(values.rejected))) {
    throw new UsageError(`--rejected: ${values.rejected === '' ? 'a file name is required' : `${values.rejected} exists already; name a new file`}`);
  }
  const file = values.file;
  const names = { map: '--map', file: '--file', campaignId: '--campaign' };
  const map = values.map === undefined ? undefined : await run(names, async () => parseMapOption(values.map as string));
  return withCtx(values, (ctx) =>
    run(names, async () => {
      const progress = values.json ? null : await progressReporter(estimateRows(file));
      const common = { campaignId: values.campaign as string, source: createReadStream(file), map, onProgress: (p: ImportProgress) => progress?.update(p) };
      try {
        const dry = values['dry-run'] === true;
        // A real import is the owner's write, as the dashboard's is the member's: one audit event,
        // in the first chunk's transaction, naming the campaign (a dry run writes nothing).
        const r: ImportResult & Partial<ImportPreview> = dry
          ? await previewImport(ctx, common)
          : await withAudit(
              ctx,
              { actor: { type: 'owner' }, action: 'import', targets: [common.campaignId], summary: `Import leads from ${basename(file)}` },
              () => importLeads(ctx, common),
            );
        progress?.stop();
        if (values.rejected !== undefined && r.rows.length > 0) writeFileSync(values.rejected, rejectedRowsCsv(r.header, r.delimiter, r.rows));
        const stop = r.stoppedAt ? { stoppedAt: r.stoppedAt } : {};
        if (values.json) {
          const credits = dry ? { creditsNeeded: r.creditsNeeded, creditsAvailable: r.creditsAvailable, shortOfCredits: r.shortOfCredits } : {};
          stdout(
            JSON.stringify(
              { summary: r.summary, creditsCharged: r.creditsCharged, ...credits, unmappedColumns: r.unmappedColumns, rows: jsonRows(r.rows), ...stop },
              null,
              2,
            ),
          );
        } else {
          stdout(`${dry ? 'Dry run, nothing written' : `Imported into ${values.campaign}`}: ${summaryLine(r)}`);
          if (dry) {
            stdout(`Credits needed: ${r.creditsNeeded}; available: ${r.creditsAvailable}; short: ${r.shortOfCredits} row(s) would be left without credits.`);
            if ((r.shortOfCredits ?? 0) > 0) {
              stdout(
                `Grant credits first (${creditsAddCommand(resolveSettings(values).dbPath, Math.max(1, (r.creditsNeeded ?? 0) - (r.creditsAvailable ?? 0)))}), or import fewer rows.`,
              );
            }
          }
          if (r.unmappedColumns.length) stdout(`Ignored columns: ${r.unmappedColumns.join(', ')}.`);
          printRows(r.rows);
          if (values.rejected !== undefined && r.rows.length > 0)
            stdout(`Wrote the ${r.rows.length} row(s) not created to ${values.rejected}, with the reason for each.`);
          if (r.stoppedAt) stdout(`Stopped at line ${r.stoppedAt.line}: ${r.stoppedAt.message}`);
        }
        return r.stoppedAt ? 1 : 0;
      } finally {
        progress?.stop();
      }
    }),
  );
}

/** The exclusion list takes at most this many URLs a call, as the dashboard's tool does. */
const EXCLUSIONS_PER_CALL = 1000;

/** Puts URLs on the exclusion list through the operator's tool, a thousand a call. */
async function exclude(ctx: Ctx, urls: readonly string[]): Promise<{ added: string[]; alreadyExcluded: string[]; leadsExcluded: number }> {
  const total = { added: [] as string[], alreadyExcluded: [] as string[], leadsExcluded: 0 };
  for (let i = 0; i < urls.length; i += EXCLUSIONS_PER_CALL) {
    const r = await operate<typeof total>(ctx, addExclusionsTool, { urls: urls.slice(i, i + EXCLUSIONS_PER_CALL) });
    total.added.push(...r.added);
    total.alreadyExcluded.push(...r.alreadyExcluded);
    total.leadsExcluded += r.leadsExcluded;
  }
  return total;
}

const excludedLine = (r: Awaited<ReturnType<typeof exclude>>): string =>
  `Excluded ${r.added.length} new profile(s) (${r.alreadyExcluded.length} already on the list); ${r.leadsExcluded} lead(s) newly excluded.`;

export async function exclusions(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return listCommand(rest, {
        key: 'exclusions',
        read: listExclusions,
        empty: 'The exclusion list is empty.',
        columns: [
          ['PROFILE URL', (e) => e.networkUrl],
          ['ADDED', (e) => e.createdAt],
        ],
      });
    case 'add':
    case 'remove': {
      const { values, positionals } = parse(rest, DB, Number.MAX_SAFE_INTEGER);
      if (positionals.length === 0) throw new UsageError(`exclusions ${sub}: give at least one profile URL`);
      return withCtx(values, (ctx) =>
        run({ urls: 'URL' }, async () => {
          if (sub === 'add') {
            stdout(excludedLine(await exclude(ctx, positionals)));
          } else {
            const r = await operate<{ removed: string[]; notExcluded: string[] }>(ctx, removeExclusionsTool, { urls: positionals });
            stdout(`Removed ${r.removed.length} profile(s) from the list${r.notExcluded.length ? `; not on it: ${r.notExcluded.join(', ')}` : ''}.`);
          }
        }),
      );
    }
    case 'import': {
      const { values } = parse(rest, { ...DB, file: { type: 'string' } });
      if (!values.file) throw new UsageError('--file: required (one profile URL per line, or a CSV with a profile URL column)');
      const text = readFileSync(requireFile('--file', values.file), 'utf8');
      return withCtx(values, (ctx) =>
        run({ urls: '--file', file: '--file' }, async () => {
          const urls = exclusionUrlsFromText(text);
          if (urls.length === 0) throw new UsageError(`--file: ${values.file} has no profile URLs`);
          stdout(excludedLine(await exclude(ctx, urls)));
        }),
      );
    }
    default:
      subcommand('exclusions', sub, ['list', 'add', 'remove', 'import']);
  }
}

const MAILBOX_FLAGS = {
  name: { type: 'string' },
  'from-name': { type: 'string' },
  'smtp-host': { type: 'string' },
  'smtp-port': { type: 'string' },
  'smtp-secure': { type: 'string' },
  'smtp-user': { type: 'string' },
  'smtp-password-env': { type: 'string' },
  'imap-host': { type: 'string' },
  'imap-port': { type: 'string' },
  'imap-secure': { type: 'string' },
  'imap-user': { type: 'string' },
  'imap-password-env': { type: 'string' },
  'daily-limit': { type: 'string' },
  'warm-up': { type: 'string' },
  spacing: { type: 'string' },
  'time-zone': { type: 'string' },
  hours: { type: 'string' },
} satisfies Options;

const MAILBOX_NAMES = {
  name: '--name',
  address: '--address',
  fromName: '--from-name',
  smtp: '--smtp-host',
  imap: '--imap-host',
  sim: '--sim',
  dailyLimit: '--daily-limit',
  warmUp: '--warm-up',
  spacingSeconds: '--spacing',
  timeZone: '--time-zone',
  workingHours: '--hours',
  active: '--active',
};

type MailboxFlagValues = { [K in keyof typeof MAILBOX_FLAGS]?: string | undefined };

/** `--smtp-host` and its siblings as the verb's server object; undefined when no flag of the server is given. */
function serverFlags(values: MailboxFlagValues, which: 'smtp' | 'imap'): Record<string, unknown> | undefined {
  const host = values[`${which}-host`];
  const rest = [values[`${which}-port`], values[`${which}-secure`], values[`${which}-user`], values[`${which}-password-env`]];
  if (host === undefined && rest.every((v) => v === undefined)) return undefined;
  return {
    host,
    port: int(values[`${which}-port`], `--${which}-port`) ?? (which === 'smtp' ? 587 : 993),
    secure: bool(values[`${which}-secure`], `--${which}-secure`),
    user: values[`${which}-user`],
    passwordEnv: values[`${which}-password-env`],
  };
}

/** `--hours always` or `--hours 09:00-17:30` (mon to fri). */
function hoursFlag(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  if (raw === 'always') return 'always';
  const m = /^(\d\d:\d\d)-(\d\d:\d\d)$/.exec(raw);
  if (!m) throw new UsageError(`--hours: "${raw}" must be always or HH:MM-HH:MM`);
  return { start: m[1], end: m[2] };
}

/** The mailbox flags that `add` and `update` share, as the verb's fields. */
function mailboxSettings(values: MailboxFlagValues): Record<string, unknown> {
  return {
    fromName: values['from-name'],
    smtp: serverFlags(values, 'smtp'),
    imap: serverFlags(values, 'imap'),
    dailyLimit: int(values['daily-limit'], '--daily-limit'),
    warmUp: bool(values['warm-up'], '--warm-up'),
    spacingSeconds: int(values.spacing, '--spacing'),
    timeZone: values['time-zone'],
    workingHours: hoursFlag(values.hours),
  };
}

const mailboxLine = (m: Mailbox): string =>
  `${m.address}, ${m.status}, ${m.today.sent}/${m.today.limit} today${m.warmUp ? ` (warming up, day ${m.warmUp.day} of ${m.warmUp.days}; ${m.dailyLimit} a day after)` : ''}`;

export async function mailboxes(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return listCommand<Mailbox>(rest, {
        key: 'mailboxes',
        read: everyPage(listMailboxes, 'mailboxes'),
        empty:
          'No mailboxes. Add one with: npx outreach mailboxes add --name Sales --address you@example.com --smtp-host smtp.example.com --smtp-password-env SMTP_PASSWORD',
        columns: [
          ['ID', (m) => m.id],
          ['NAME', (m) => m.name],
          ['ADDRESS', (m) => m.address],
          ['STATUS', (m) => m.status],
          ['SENT TODAY', (m) => `${m.today.sent}/${m.today.limit}`],
          ['WARM-UP', (m) => warmUpDay(m.warmUp)],
          ['SERVERS', (m) => (m.sim ? 'simulated' : `${m.smtp?.host}:${m.smtp?.port}${m.imap ? `, ${m.imap.host}:${m.imap.port}` : ''}`)],
        ],
        config: true,
      });
    case 'add': {
      const { values } = parse(rest, {
        ...DB,
        ...MAILBOX_FLAGS,
        ...IDEMPOTENCY_FLAG,
        address: { type: 'string' },
        sim: { type: 'boolean' },
        env: { type: 'string' },
        config: { type: 'string' },
      });
      if (values.name === undefined) throw new UsageError('--name: required');
      if (values.address === undefined) throw new UsageError('--address: required');
      const input = checked(
        ConnectMailboxInput,
        { name: values.name, address: values.address, sim: values.sim ? true : undefined, ...mailboxSettings(values) },
        MAILBOX_NAMES,
      );
      return withCtx(
        values,
        (ctx) =>
          run({ ...MAILBOX_NAMES, ...IDEMPOTENCY_NAME }, async () => {
            const { mailbox } = await operate<{ mailbox: Mailbox }>(ctx, connectMailboxTool, input, values['idempotency-key']);
            stdout(`Added mailbox ${mailbox.id} (${mailbox.name}): ${mailboxLine(mailbox)}.`);
          }),
        { env: true },
      );
    }
    case 'update': {
      const { values, positionals } = parse(
        rest,
        { ...DB, ...MAILBOX_FLAGS, active: { type: 'string' }, env: { type: 'string' }, config: { type: 'string' } },
        1,
      );
      const id = positionals[0];
      if (!id) throw new UsageError('mailboxes update: the mailbox ID is required (see npx outreach mailboxes list)');
      const input = checked(UpdateMailboxInput, { name: values.name, ...mailboxSettings(values), active: bool(values.active, '--active') }, MAILBOX_NAMES);
      return withCtx(
        values,
        (ctx) =>
          run({ ...MAILBOX_NAMES, mailboxId: 'ID' }, async () => {
            const m = await operate<Mailbox>(ctx, updateMailboxTool, { mailboxId: id, ...input });
            stdout(`Updated mailbox ${m.id} (${m.name}): ${mailboxLine(m)}.`);
          }),
        { env: true },
      );
    }
    default:
      subcommand('mailboxes', sub, ['list', 'add', 'update']);
  }
}
