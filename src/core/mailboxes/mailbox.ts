import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { iso, IsoTimestamp } from '../clock.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ApiError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { noteAuditTarget } from '../audit/current.js';
import { MailLoginError, type MailboxServers, type MailPort } from '../network/mail.js';
import {
  MAILBOX_DAILY_LIMIT_DEFAULT,
  MAILBOX_DAILY_LIMIT_MAX,
  MAILBOX_SPACING_DEFAULT_SECONDS,
  MAILBOX_WARM_UP,
  mailboxLimitOn,
  mailboxSentOn,
  mailboxWarmUpDay,
} from '../safety/mailbox.js';
import { AccountHoursInput, TimeZone } from '../safety/rules.js';
import { findMailbox, findMailboxByAddress, insertMailbox, mailboxPage, updateMailboxRow, type MailboxInsert, type MailboxRow } from './store.js';

/**
 * Mailboxes: the sending identities of the email channel. A mailbox names the environment
 * variables that hold its passwords (as the Unipile key is configured); the passwords are read
 * by the mail adapter when it connects and are never stored, returned or logged. Connecting
 * checks the logins first, so a mailbox that exists can send.
 */

export const MAILBOX_STATUSES = ['connected', 'paused', 'login_failed'] as const;
export const MailboxStatus = z.enum(MAILBOX_STATUSES);

/** An email address as a mailbox or a lead has it: one @, no spaces, a dotted domain. */
export const EmailAddress = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@<>(),;:"[\]\\]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/, 'must be an email address such as ada@example.com')
  .transform((a) => a.toLowerCase());

/** An environment variable's name, as a shell would accept it. */
const EnvName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name such as SMTP_PASSWORD')
  .describe('The environment variable that holds the password; the password itself is never sent, stored or returned.');

const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]-]+$/, 'must be a host name or IP address');
const Port = z.number().int().min(1).max(65535);

export const ServerInput = z.strictObject({
  host: Host.describe('Server host name, e.g. smtp.gmail.com.'),
  port: Port.describe('Server port: 465 or 587 for SMTP, 993 for IMAP.'),
  secure: z.boolean().optional().describe('TLS from the first byte (true on 465 and 993, the default there); false upgrades with STARTTLS.'),
  user: z.string().min(1).max(254).optional().describe("Login name; default the mailbox's address."),
  passwordEnv: EnvName,
});
export type ServerInput = z.output<typeof ServerInput>;

const Server = z.object({ host: z.string(), port: z.number().int(), secure: z.boolean(), user: z.string(), passwordEnv: z.string() });

const MailboxName = z.string().trim().min(1, 'must not be blank').max(120).describe('A name for the mailbox, 1..120 characters.');
const FromName = z.string().trim().min(1).max(120).describe('The display name in From, e.g. "Ada Lovelace".');
const DailyLimit = z.number().int().min(1).max(MAILBOX_DAILY_LIMIT_MAX).describe(`Emails per UTC day once warmed up (default ${MAILBOX_DAILY_LIMIT_DEFAULT}).`);
const SpacingSeconds = z
  .number()
  .int()
  .min(10)
  .max(3600)
  .describe(`The shortest pause between two emails of the mailbox, in seconds (default ${MAILBOX_SPACING_DEFAULT_SECONDS}).`);
const WarmUp = z
  .boolean()
  .describe(
    `Start at ${MAILBOX_WARM_UP.start} emails a day and rise over ${MAILBOX_WARM_UP.days} days to dailyLimit (default true); false for a mailbox already sending at volume.`,
  );
const Hours = AccountHoursInput.describe('"always", or start and end as "HH:MM" on the given days (default mon to fri), in the mailbox\'s time zone.');

export const ConnectMailboxInput = z.strictObject({
  name: MailboxName,
  address: EmailAddress.describe('The address the mailbox sends from.'),
  fromName: FromName.optional(),
  smtp: ServerInput.optional().describe('The SMTP server that sends. Required unless sim.'),
  imap: ServerInput.nullable().optional().describe('The IMAP server whose inbox holds replies and bounces; null (the default) reads nothing.'),
  sim: z.literal(true).optional().describe('Development only: a simulated mailbox, in place of smtp and imap.'),
  dailyLimit: DailyLimit.optional(),
  warmUp: WarmUp.optional(),
  timeZone: TimeZone.optional().describe('IANA time zone of the working hours, e.g. Europe/Berlin.'),
  workingHours: Hours.optional(),
  spacingSeconds: SpacingSeconds.optional(),
});
export type ConnectMailboxInput = z.output<typeof ConnectMailboxInput>;

export const UpdateMailboxFields = {
  name: MailboxName.optional(),
  fromName: FromName.nullable().optional(),
  smtp: ServerInput.optional(),
  imap: ServerInput.nullable().optional(),
  dailyLimit: DailyLimit.optional(),
  warmUp: WarmUp.optional().describe('false ends a running warm-up; true starts one from today when none runs.'),
  timeZone: TimeZone.optional(),
  workingHours: Hours.optional(),
  spacingSeconds: SpacingSeconds.optional(),
  active: z.boolean().optional().describe('false pauses all sending from the mailbox; true resumes it (after checking its logins again).'),
};
export const UpdateMailboxInput = z.strictObject(UpdateMailboxFields);
export type UpdateMailboxInput = z.output<typeof UpdateMailboxInput>;

export const Mailbox = z.object({
  id: z.string(),
  name: z.string(),
  address: z.string(),
  fromName: z.string().nullable(),
  /** null for a simulated mailbox. */
  smtp: Server.nullable(),
  imap: Server.nullable(),
  sim: z.boolean(),
  dailyLimit: z.number().int(),
  /** A running warm-up: today is day `day` (1-based) of `days`; null when none runs. */
  warmUp: z.object({ day: z.number().int(), days: z.number().int() }).nullable(),
  timeZone: z.string().nullable(),
  /** null: the server's default working hours. */
  workingHours: z.union([z.literal('always'), z.object({ start: z.string(), end: z.string(), days: z.array(z.string()) })]).nullable(),
  spacingSeconds: z.number().int(),
  status: MailboxStatus,
  /** The server's last refusal; null while the mailbox works. */
  lastError: z.string().nullable(),
  today: z.object({ sent: z.number().int(), limit: z.number().int() }),
  createdAt: IsoTimestamp,
});
export type Mailbox = z.infer<typeof Mailbox>;

export const ConnectMailboxResult = z.object({ mailbox: Mailbox });

function storedHours(json: string | null): Mailbox['workingHours'] {
  if (json === null) return null;
  try {
    const parsed = AccountHoursInput.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function toMailbox(ctx: Ctx, row: MailboxRow, now = ctx.simClock.now()): Mailbox {
  const day = mailboxWarmUpDay(row, now);
  return {
    id: row.id,
    name: row.name,
    address: row.address,
    fromName: row.fromName,
    smtp: serversOf(row).smtp,
    imap: serversOf(row).imap,
    sim: row.kind === 'sim',
    dailyLimit: row.dailyLimit,
    warmUp: day === null ? null : { day: day + 1, days: MAILBOX_WARM_UP.days },
    timeZone: row.timeZone,
    workingHours: storedHours(row.workingHours),
    spacingSeconds: row.spacingSeconds,
    status: row.status as Mailbox['status'],
    lastError: row.lastError,
    today: { sent: mailboxSentOn(ctx, row.id, now), limit: mailboxLimitOn(row, now) },
    createdAt: iso(row.createdAt),
  };
}

/** What the mail adapter needs of a mailbox: its servers and the names of its password variables. */
export function serversOf(row: MailboxRow): MailboxServers {
  const smtp =
    row.smtpHost == null
      ? null
      : {
          host: row.smtpHost,
          port: row.smtpPort ?? 587,
          secure: row.smtpSecure ?? false,
          user: row.smtpUser ?? row.address,
          passwordEnv: row.smtpPasswordEnv ?? '',
        };
  const imap =
    row.imapHost == null
      ? null
      : {
          host: row.imapHost,
          port: row.imapPort ?? 993,
          secure: row.imapSecure ?? true,
          user: row.imapUser ?? row.address,
          passwordEnv: row.imapPasswordEnv ?? '',
        };
  return { id: row.id, address: row.address, fromName: row.fromName, kind: row.kind === 'sim' ? 'sim' : 'smtp', smtp, imap };
}

/** The mail adapter of this server; a context without one cannot reach a mail server. */
export function mailOf(ctx: Ctx): MailPort {
  if (!ctx.mail) throw new ApiError('upstream_unavailable', 'This server has no mail transport. Start it with the server command, then retry.');
  return ctx.mail;
}

export function requireMailbox(ctx: Ctx, id: string): MailboxRow {
  const row = findMailbox(ctx, id);
  if (!row) throw new ApiError('not_found', `Mailbox ${id} not found.`);
  return row;
}

const smtpColumns = (s: ServerInput | undefined, address: string) =>
  s === undefined
    ? {}
    : { smtpHost: s.host, smtpPort: s.port, smtpSecure: s.secure ?? s.port === 465, smtpUser: s.user ?? address, smtpPasswordEnv: s.passwordEnv };
const imapColumns = (s: ServerInput | null | undefined, address: string) =>
  s === undefined
    ? {}
    : s === null
      ? { imapHost: null, imapPort: null, imapSecure: null, imapUser: null, imapPasswordEnv: null }
      : { imapHost: s.host, imapPort: s.port, imapSecure: s.secure ?? s.port === 993, imapUser: s.user ?? address, imapPasswordEnv: s.passwordEnv };

/**
 * A failed login as the API answers it: 422 naming the server. A password variable that is not
 * set on this server is said as such (no login was tried), with the variable in the details.
 */
export function loginFailed(err: MailLoginError): ApiError {
  const server = err.server.toUpperCase();
  if (err.unsetVariable !== undefined)
    return new ApiError(
      'mailbox_login_failed',
      `The ${server} password for ${err.host} is not set: start the server with the environment variable ${err.unsetVariable} set, then retry.`,
      { server: err.server, host: err.host, passwordEnv: err.unsetVariable },
    );
  return new ApiError('mailbox_login_failed', `The ${server} server ${err.host} refused the login: ${err.message}`, { server: err.server, host: err.host });
}

/** Runs the login check; a refusal is `mailbox_login_failed`, anything else `upstream_unavailable`. */
async function checkLogins(ctx: Ctx, servers: MailboxServers): Promise<void> {
  try {
    await mailOf(ctx).verifyLogin(servers);
    ctx.log.info({ mailbox: servers.id, smtp: servers.smtp, imap: servers.imap }, 'mailbox logins accepted');
  } catch (err) {
    // A refused login is the caller's answer (mailbox_login_failed, naming the server), not a fault.
    if (err instanceof MailLoginError) {
      ctx.log.info({ mailbox: servers.id, server: err.server }, 'mailbox login refused');
      throw loginFailed(err);
    }
    ctx.log.warn({ mailbox: servers.id, err }, 'mailbox login check failed');
    if (err instanceof ApiError) throw err;
    const host = servers.smtp?.host ?? servers.imap?.host ?? 'the mail server';
    throw new ApiError(
      'upstream_unavailable',
      `Could not reach ${host} (${err instanceof Error ? err.message : String(err)}). Nothing was changed; retry shortly.`,
    );
  }
}

/**
 * Adds a mailbox once its servers accept its logins. The check runs before anything is written
 * (network I/O never inside a transaction), so a refused login leaves nothing behind.
 */
export async function connectMailbox(ctx: Ctx, input: ConnectMailboxInput): Promise<{ mailbox: Mailbox }> {
  const sim = input.sim === true;
  if (sim && ctx.env === 'production') throw validationError('sim: simulated mailboxes exist in development only; give smtp.', ['sim']);
  if (sim && (input.smtp !== undefined || (input.imap !== undefined && input.imap !== null)))
    throw validationError('sim: a simulated mailbox has no servers; leave smtp and imap out.', ['sim']);
  if (!sim && input.smtp === undefined) throw validationError('smtp: give the SMTP server that sends (or sim: true in development).', ['smtp']);
  const existing = findMailboxByAddress(ctx, input.address);
  if (existing) {
    // Connecting the same address to the same servers again is the same mailbox: a re-run script
    // gets it back. Other servers for a known address are a conflict (update_mailbox changes them).
    const same =
      JSON.stringify(serversOf(existing)) ===
      JSON.stringify(
        serversOf({ ...existing, kind: sim ? 'sim' : 'smtp', ...smtpColumns(input.smtp, input.address), ...imapColumns(input.imap ?? null, input.address) }),
      );
    if (same) {
      noteAuditTarget(existing.id);
      return { mailbox: toMailbox(ctx, existing) };
    }
    throw new ApiError('conflict', `A mailbox for ${input.address} exists already, with other servers; change it with update_mailbox.`, {
      fields: ['address'],
    });
  }
  const now = ctx.clock.now();
  const row: MailboxInsert = {
    id: newId('mbx'),
    name: input.name,
    address: input.address,
    fromName: input.fromName ?? null,
    kind: sim ? 'sim' : 'smtp',
    ...smtpColumns(input.smtp, input.address),
    ...imapColumns(input.imap, input.address),
    dailyLimit: input.dailyLimit ?? MAILBOX_DAILY_LIMIT_DEFAULT,
    warmUpStartedAt: (input.warmUp ?? true) ? ctx.simClock.now() : null,
    timeZone: input.timeZone ?? null,
    workingHours: input.workingHours === undefined ? null : JSON.stringify(input.workingHours),
    spacingSeconds: input.spacingSeconds ?? MAILBOX_SPACING_DEFAULT_SECONDS,
    status: 'connected',
    createdAt: now,
    updatedAt: now,
  };
  await checkLogins(ctx, serversOf(row as MailboxRow));
  transaction(ctx.db, () => {
    // A concurrent connect of the same address may have won while the logins were checked.
    if (findMailboxByAddress(ctx, input.address)) throw new ApiError('conflict', `A mailbox for ${input.address} exists already.`, { fields: ['address'] });
    // Named before the transaction ends: the audit event is written as it commits.
    noteAuditTarget(row.id as string);
    insertMailbox(ctx, row);
  });
  return { mailbox: toMailbox(ctx, requireMailbox(ctx, row.id as string)) };
}

/**
 * Changes a mailbox. New servers, and resuming one whose login failed, are checked before
 * anything is written, as at connect. Limits, hours and spacing apply from the next send.
 */
export async function updateMailbox(ctx: Ctx, id: string, input: UpdateMailboxInput): Promise<Mailbox> {
  const fields = Object.keys(UpdateMailboxFields);
  if (Object.values(input).every((v) => v === undefined)) throw validationError(`Give at least one of ${fields.join(', ')}.`, fields);
  const before = requireMailbox(ctx, id);
  if (before.kind === 'sim' && (input.smtp !== undefined || (input.imap !== undefined && input.imap !== null)))
    throw validationError('smtp: a simulated mailbox has no servers.', [input.smtp !== undefined ? 'smtp' : 'imap']);
  const set: Partial<MailboxInsert> = { ...smtpColumns(input.smtp, before.address), ...imapColumns(input.imap, before.address) };
  if (input.name !== undefined) set.name = input.name;
  if (input.fromName !== undefined) set.fromName = input.fromName;
  if (input.dailyLimit !== undefined) set.dailyLimit = input.dailyLimit;
  if (input.timeZone !== undefined) set.timeZone = input.timeZone;
  if (input.workingHours !== undefined) set.workingHours = JSON.stringify(input.workingHours);
  if (input.spacingSeconds !== undefined) set.spacingSeconds = input.spacingSeconds;
  const serversChanged = input.smtp !== undefined || (input.imap !== undefined && input.imap !== null);
  const resuming = input.active === true && before.status !== 'connected';
  if (input.active === false) set.status = 'paused';
  if (serversChanged || resuming) {
    await checkLogins(ctx, serversOf({ ...before, ...set } as MailboxRow));
    if (input.active !== false && (resuming || before.status === 'login_failed')) set.status = 'connected';
    set.lastError = null;
  }
  transaction(ctx.db, () => {
    const row = requireMailbox(ctx, id);
    const now = ctx.simClock.now();
    if (input.warmUp === false) set.warmUpStartedAt = null;
    // A running warm-up keeps its day: asking again must not send the mailbox back to day 1.
    else if (input.warmUp === true && mailboxWarmUpDay(row, now) === null) set.warmUpStartedAt = now;
    updateMailboxRow(ctx, id, { ...set, updatedAt: ctx.clock.now() });
  });
  return toMailbox(ctx, requireMailbox(ctx, id));
}

/** Records that a server refused the mailbox's login at a send or a read: it stops until the operator resumes it. */
export function recordLoginFailure(ctx: Ctx, id: string, err: MailLoginError): void {
  transaction(ctx.db, () => updateMailboxRow(ctx, id, { status: 'login_failed', lastError: loginFailed(err).message, updatedAt: ctx.clock.now() }));
}

const SCOPE = 'mailboxes';

export function listMailboxes(
  ctx: Ctx,
  secret: string,
  input: { limit: number; cursor?: string | undefined },
): { mailboxes: Mailbox[]; nextCursor: string | null } {
  let after = 0;
  if (input.cursor !== undefined) {
    const [seq] = decodeCursor(secret, SCOPE, input.cursor);
    if (typeof seq !== 'number') throw invalidCursor();
    after = seq;
  }
  const rows = mailboxPage(ctx, after, input.limit + 1);
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, SCOPE, [last.seq]));
  const now = ctx.simClock.now();
  return { mailboxes: page.items.map((r) => toMailbox(ctx, r, now)), nextCursor: page.nextCursor };
}
