import { z } from 'zod';
import { accountRef, requireConnectedAccount } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { ApiError, httpStatus, validationError } from '../errors.js';
import { normalizeProfileUrl } from '../leads/url.js';
import { admitPeopleSearch, admitProfileLookup, type QuotaPermit } from '../ratelimit/network.js';
import type { RateLimitReport } from '../ratelimit/report.js';

const Text = z.string();

export const Experience = z.object({
  company: Text.nullable(),
  position: Text.nullable(),
  location: Text.nullable(),
  description: Text.nullable(),
  start: Text.nullable(),
  end: Text.nullable(),
});

/** The spec's Profile; `about` and `experience` only at `depth: full`. */
export const Profile = z.object({
  fullName: Text,
  firstName: Text,
  lastName: Text,
  headline: Text,
  jobTitle: Text,
  companyName: Text,
  companyNetwork: Text.nullable(),
  website: Text.nullable(),
  location: Text,
  networkUrl: Text,
  providerId: Text,
  profilePictureUrl: Text.nullable(),
  about: Text.nullable().optional(),
  experience: z.array(Experience).optional(),
});
export type Profile = z.infer<typeof Profile>;

export const SearchResult = Profile.pick({
  fullName: true,
  headline: true,
  jobTitle: true,
  companyName: true,
  location: true,
  networkUrl: true,
  providerId: true,
  profilePictureUrl: true,
});

export const SearchPage = z.object({ results: z.array(SearchResult), cursor: z.string().nullable() });
export type SearchPage = z.infer<typeof SearchPage>;

export interface LookupProfileInput {
  accountId: string;
  networkUrl: string;
  depth: 'basic' | 'full';
}

/**
 * POST /network/profiles/lookup: a live lookup through the account. The account must exist
 * and be connected; the provider's failures (quota, outage, unknown profile) pass through as
 * their own codes. The account's daily lookup quota and spacing are admitted before the call;
 * a failed call gives its quota unit back.
 */
export async function lookupProfile(ctx: Ctx, input: LookupProfileInput, report?: RateLimitReport): Promise<Profile> {
  const networkUrl = normalizeProfileUrl(input.networkUrl);
  if (networkUrl === null) throw validationError('networkUrl must be a personal profile URL like https://www.linkedin.com/in/<slug>.', ['networkUrl']);
  const account = requireConnectedAccount(ctx, input.accountId);
  const profile = await withPermit(
    admitProfileLookup(ctx, account, report),
    () => ctx.network.lookupProfile({ account: accountRef(account), networkUrl, depth: input.depth }),
    () => 1,
  );
  return input.depth === 'full' ? profile : stripFull(profile);
}

/**
 * Runs a network call under a quota permit: settles what was used, or nothing on failure. A
 * failure that refuses the request itself (4xx: a cursor of another search, an unknown profile)
 * also gives back the account's spacing, which counts accepted requests only; a failure of the
 * network (5xx) or the network's own 429 keeps it, so a throttled account is not asked again at once.
 */
async function withPermit<T>(permit: QuotaPermit, call: () => Promise<T>, used: (result: T) => number): Promise<T> {
  let result: T;
  try {
    result = await call();
  } catch (err) {
    if (err instanceof ApiError && httpStatus(err) < 500 && httpStatus(err) !== 429) permit.refuse();
    else permit.settle(0);
    throw err;
  }
  permit.settle(used(result));
  return result;
}

/** A basic lookup never carries the full-depth fields, whatever the provider sent. */
function stripFull(profile: Profile): Profile {
  const { about: _about, experience: _experience, ...basic } = profile;
  return basic;
}

export const SEARCH_LIMITS = { classic: 50, sales_nav: 100 } as const;

export interface SearchInput {
  accountId: string;
  type: 'classic' | 'sales_nav';
  query?: string | undefined;
  url?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/**
 * POST /network/search: one page of people search. Exactly one of query and url; limit at most
 * 50 (classic) or 100 (Sales Navigator); Sales Navigator needs the account's seat.
 */
export async function searchPeople(ctx: Ctx, input: SearchInput, report?: RateLimitReport): Promise<SearchPage> {
  if ((input.query === undefined) === (input.url === undefined)) {
    throw validationError('Give exactly one of query (keywords) or url (a search URL).', ['query', 'url']);
  }
  const max = SEARCH_LIMITS[input.type];
  if (input.limit > max) throw validationError(`limit is at most ${max} for a ${input.type} search.`, ['limit']);
  const account = requireConnectedAccount(ctx, input.accountId);
  if (input.type === 'sales_nav' && !account.hasSalesNavigator) {
    throw new ApiError(
      'sales_nav_required',
      `Account ${account.id} has no Sales Navigator. Run a classic search, or use an account with Sales Navigator (see list_accounts).`,
    );
  }
  // The daily results quota may shorten the last page of a day (granted ≤ limit).
  const permit = admitPeopleSearch(ctx, account, input.limit, report);
  const page = await withPermit(
    permit,
    () =>
      ctx.network.searchPeople({
        account: accountRef(account),
        type: input.type,
        ...(input.query !== undefined ? { query: input.query } : { url: input.url as string }),
        limit: permit.granted,
        cursor: input.cursor ?? null,
      }),
    (p) => p.results.length,
  );
  return { results: page.results, cursor: page.cursor };
}
