import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import { supportsHostedSignIn } from '../network/provider.js';
import type { Ctx } from '../context.js';
import { ApiError, toApiError, validationError } from '../errors.js';
import { newId } from '../ids.js';
import { Account, findAccountView } from './list.js';
import { requireAccount } from './resolve.js';
import { accountByProviderAccountId, accountRowById, deleteAccountRow, insertAccountRow, type NewAccountRow, updateAccountRow } from './store.js';
import { AccountHoursInput, safetyOf, TimeZone, warmUpDay } from '../safety/rules.js';
import { noteAuditTarget } from '../audit/current.js';

export const CONNECTION_REQUEST_LIMIT_MAX = 100;
export const MESSAGE_LIMIT_MAX = 150;
export const PROFILE_VISIT_LIMIT_MAX = 150;
export const POST_REACTION_LIMIT_MAX = 100;
/** Conservative defaults (docs/account-safety.md): well under what LinkedIn tolerates from a person. */
export const PROFILE_VISIT_LIMIT_DEFAULT = 40;
export const POST_REACTION_LIMIT_DEFAULT = 30;

export const AccountName = z.string().trim().min(1, 'must not be blank').max(120).describe('A name for the account, 1..120 characters.');
export const ConnectionRequestLimit = z.number().int().min(1).max(CONNECTION_REQUEST_LIMIT_MAX).describe('Connection requests per UTC day (default 25).');
export const MessageLimit = z.number().int().min(1).max(MESSAGE_LIMIT_MAX).describe('Messages per UTC day, InMails included (default 50).');
export const ProfileVisitLimit = z
  .number()
  .int()
  .min(1)
  .max(PROFILE_VISIT_LIMIT_MAX)
  .describe(`Profile visits (visit steps) per UTC day (default ${PROFILE_VISIT_LIMIT_DEFAULT}).`);
export const PostReactionLimit = z
  .number()
  .int()
  .min(1)
  .max(POST_REACTION_LIMIT_MAX)
  .describe(`Post likes (like_post steps) per UTC day (default ${POST_REACTION_LIMIT_DEFAULT}).`);
const WarmUpFlag = z.boolean();

export const ConnectAccountInput = z.strictObject({
  name: AccountName,
  hasSalesNavigator: z.boolean().optional().describe('Development only: simulate Sales Navigator (production reads it from the network).'),
  connectionRequestLimit: ConnectionRequestLimit.optional(),
  messageLimit: MessageLimit.optional(),
  profileVisitLimit: ProfileVisitLimit.optional(),
  postReactionLimit: PostReactionLimit.optional(),
  warmUp: WarmUpFlag.optional().describe(
    'Start with low daily limits raised day by day to the configured ones (default true unless the config turns it off); false for an account already used at full volume.',
  ),
});
export type ConnectAccountInput = z.output<typeof ConnectAccountInput>;

export const UpdateAccountFields = {
  name: AccountName.optional(),
  connectionRequestLimit: ConnectionRequestLimit.optional(),
  messageLimit: MessageLimit.optional(),
  profileVisitLimit: ProfileVisitLimit.optional(),
  postReactionLimit: PostReactionLimit.optional(),
  active: z.boolean().optional().describe('false stops all sending from the account; true resumes it.'),
  weeklyConnectionRequestLimit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('Connection requests in any rolling 7 days (default 100), on top of the daily limit.'),
  timeZone: TimeZone.optional().describe('IANA time zone of the working hours, e.g. Europe/Berlin.'),
  workingHours: AccountHoursInput.optional().describe(
    '"always", or start and end as "HH:MM" on the given days (default mon to fri), in the account\'s time zone.',
  ),
  warmUp: WarmUpFlag.optional().describe('false ends a running warm-up (full limits at once); true starts one from today when none runs.'),
};
export const UpdateAccountInput = z.strictObject(UpdateAccountFields);
export type UpdateAccountInput = z.output<typeof UpdateAccountInput>;

export const ConnectAccountResult = z.object({ account: Account, connectUrl: z.string().nullable() });
export type ConnectAccountResult = z.infer<typeof ConnectAccountResult>;

const view = (ctx: Ctx, id: string): Account => {
  const account = findAccountView(ctx, id);
  if (!account) throw new ApiError('not_found', `Account ${id} not found.`);
  return account;
};

/**
 * Development adds a simulated account, connected at once. Production records the account
 * as `connecting` and asks the provider for its hosted sign-in page; the provider's report
 * marks it connected. The row is written before the network call (never inside a
 * transaction) so the report can find it; a failed call removes it again, so nothing is left.
 */
export async function connectAccount(ctx: Ctx, input: ConnectAccountInput): Promise<ConnectAccountResult> {
  const production = ctx.env === 'production';
  if (production && input.hasSalesNavigator !== undefined) {
    throw validationError('hasSalesNavigator: in production it comes from the network account; leave it out.', ['hasSalesNavigator']);
  }
  const network = ctx.network;
  if (production && !supportsHostedSignIn(network)) {
    throw new ApiError('upstream_unavailable', 'This server has no network provider that can connect accounts. Configure Unipile, then retry.');
  }
  const id = newId('acc');
  noteAuditTarget(id);
  // The warm-up's day 1 is the engine's (simulated) today. In production the row waits for the
  // sign-in; completeHostedSignIn moves the start to the moment it is connected.
  const warmUp = input.warmUp ?? safetyOf(ctx).warmUp.onConnect;
  transaction(ctx.db, () => {
    insertAccountRow(ctx.db, {
      id,
      name: input.name,
      status: production ? 'connecting' : 'connected',
      hasSalesNavigator: production ? false : (input.hasSalesNavigator ?? false),
      connectionRequestLimit: input.connectionRequestLimit ?? 25,
      messageLimit: input.messageLimit ?? 50,
      profileVisitLimit: input.profileVisitLimit ?? PROFILE_VISIT_LIMIT_DEFAULT,
      postReactionLimit: input.postReactionLimit ?? POST_REACTION_LIMIT_DEFAULT,
      warmUpStartedAt: warmUp ? ctx.simClock.now() : null,
      createdAt: ctx.clock.now(),
    });
  });
  if (!production || !supportsHostedSignIn(network)) return { account: view(ctx, id), connectUrl: null };
  try {
    const { url } = await network.startHostedSignIn({ accountId: id, name: input.name });
    return { account: view(ctx, id), connectUrl: url };
  } catch (err) {
    transaction(ctx.db, () => deleteAccountRow(ctx.db, id));
    const error = toApiError(err);
    throw error.code === 'upstream_unavailable' || error.code === 'rate_limited'
      ? error
      : new ApiError('upstream_unavailable', `The network did not start the sign-in (${error.message}). Nothing was created; retry shortly.`);
  }
}

/** Limits, the weekly cap and working hours take effect from the engine's next send; `active: false` stops all sending. */
export function updateAccount(ctx: Ctx, id: string, input: UpdateAccountInput): Account {
  const set: Partial<NewAccountRow> = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.connectionRequestLimit !== undefined) set.connectionRequestLimit = input.connectionRequestLimit;
  if (input.messageLimit !== undefined) set.messageLimit = input.messageLimit;
  if (input.profileVisitLimit !== undefined) set.profileVisitLimit = input.profileVisitLimit;
  if (input.postReactionLimit !== undefined) set.postReactionLimit = input.postReactionLimit;
  if (input.active !== undefined) set.active = input.active;
  if (input.weeklyConnectionRequestLimit !== undefined) set.weeklyConnectionRequestLimit = input.weeklyConnectionRequestLimit;
  if (input.timeZone !== undefined) set.timeZone = input.timeZone;
  if (input.workingHours !== undefined) set.workingHours = JSON.stringify(input.workingHours);
  if (Object.keys(set).length === 0 && input.warmUp === undefined) {
    const fields = Object.keys(UpdateAccountFields);
    throw validationError(`Give at least one of ${fields.join(', ')}.`, fields);
  }
  transaction(ctx.db, () => {
    const row = requireAccount(ctx, id);
    if (input.warmUp === false) set.warmUpStartedAt = null;
    // A running warm-up keeps its day: asking again must not send the account back to day 1.
    else if (input.warmUp === true && warmUpDay(row, safetyOf(ctx), ctx.simClock.now()) === null) set.warmUpStartedAt = ctx.simClock.now();
    if (Object.keys(set).length > 0) updateAccountRow(ctx.db, id, set);
  });
  return view(ctx, id);
}

/**
 * The provider reported a finished hosted sign-in for our account `accountId`: link it to
 * the provider's account and take status and Sales Navigator from what the provider says.
 * Only an account still `connecting` and not yet linked is changed, so a replayed or forged
 * report cannot re-point a connected account (nor restart its warm-up). Returns whether it
 * changed anything. A warm-up asked for at connect_account starts now, at `simNow` (the
 * engine's clock), as the account can only send from here on.
 */
export function completeHostedSignIn(
  ctx: Pick<Ctx, 'db'>,
  accountId: string,
  simNow: number,
  provider: { providerAccountId: string; status: 'connected' | 'connecting' | 'failed' | 'disconnected'; hasSalesNavigator: boolean },
): boolean {
  return transaction(ctx.db, () => {
    const row = accountRowById(ctx.db, accountId);
    if (row?.status !== 'connecting' || row.providerAccountId !== null) return false;
    const taken = accountByProviderAccountId(ctx.db, provider.providerAccountId);
    if (taken) return false;
    updateAccountRow(ctx.db, accountId, {
      providerAccountId: provider.providerAccountId,
      status: provider.status,
      hasSalesNavigator: provider.hasSalesNavigator,
      warmUpStartedAt: row.warmUpStartedAt === null ? null : simNow,
    });
    return true;
  });
}
