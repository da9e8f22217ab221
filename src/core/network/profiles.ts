import { z } from 'zod';
import { accountRef, requireConnectedAccount } from '../accounts/resolve.js';
import type { Ctx } from '../context.js';
import { ApiError, validationError } from '../errors.js';
import { normalizeProfileUrl } from '../leads/url.js';

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
 * their own codes. Per-key limits, per-account spacing and the daily lookup quota belong to the
 * rate-limit layer that wraps this verb.
 */
export async function lookupProfile(ctx: Ctx, input: LookupProfileInput): Promise<Profile> {
  const networkUrl = normalizeProfileUrl(input.networkUrl);
  if (networkUrl === null) throw validationError('networkUrl must be a personal profile URL like https://www.linkedin.com/in/<slug>.', ['networkUrl']);
  const account = requireConnectedAccount(ctx, input.accountId);
  const profile = await ctx.network.lookupProfile({ account: accountRef(account), networkUrl, depth: input.depth });
  return input.depth === 'full' ? profile : stripFull(profile);
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
export async function searchPeople(ctx: Ctx, input: SearchInput): Promise<SearchPage> {
  if ((input.query === undefined) === (input.url === undefined)) {
    throw validationError('Give exactly one of query (keywords) or url (a search URL).', ['query', 'url']);
  }
  const max = SEARCH_LIMITS[input.type];
  if (input.limit > max) throw validationError(`limit is at most ${max} for a ${input.type} search.`, ['limit']);
  const account = requireConnectedAccount(ctx, input.accountId);
  if (input.type === 'sales_nav' && !account.hasSalesNavigator) {
    throw new ApiError('sales_nav_required', `Account ${account.id} has no Sales Navigator. Run a classic search, or use an account with Sales Navigator (see list_accounts).`);
  }
  const page = await ctx.network.searchPeople({
    account: accountRef(account),
    type: input.type,
    ...(input.query !== undefined ? { query: input.query } : { url: input.url as string }),
    limit: input.limit,
    cursor: input.cursor ?? null,
  });
  return { results: page.results, cursor: page.cursor };
}
