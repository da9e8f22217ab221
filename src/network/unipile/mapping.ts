import { z } from 'zod';
import { normalizeProfileUrl } from '../../core/leads/url.js';
import { composeFullName } from '../../core/text.js';
import type { AccountStatus, Experience, FullProfile, Profile, SearchResult } from '../../core/network/provider.js';

/*
 * Response shapes from Unipile's v1 OpenAPI, read loosely: unknown fields pass, and every field
 * we do not strictly need may be missing or null, so a new or absent field never fails a call.
 */
const text = z.string().nullish();

const DatePart = z.union([z.string(), z.looseObject({ year: z.number().nullish(), month: z.number().nullish() })]).nullish();

export const UnipileExperience = z.looseObject({
  position: text,
  company: text,
  company_id: text,
  location: text,
  description: text,
  current: z.boolean().nullish(),
  start: DatePart,
  end: DatePart,
});

/** GET /users/{identifier} (LinkedIn variant). */
export const UnipileProfile = z.looseObject({
  provider_id: z.string().min(1),
  public_identifier: text,
  public_profile_url: text,
  first_name: text,
  last_name: text,
  headline: text,
  summary: text,
  location: text,
  websites: z.array(z.string()).nullish(),
  profile_picture_url: text,
  work_experience: z.array(UnipileExperience).nullish(),
});
export type UnipileProfile = z.infer<typeof UnipileProfile>;

/** One `items[]` entry of POST /linkedin/search with `type: PEOPLE`. */
export const UnipileSearchPerson = z.looseObject({
  type: z.string().nullish(),
  id: z.string().min(1),
  public_identifier: text,
  public_profile_url: text,
  profile_url: text,
  profile_picture_url: text,
  name: text,
  first_name: text,
  last_name: text,
  location: text,
  headline: text,
  current_positions: z.array(z.looseObject({ company: text, company_id: text, role: text })).nullish(),
});
export type UnipileSearchPerson = z.infer<typeof UnipileSearchPerson>;

export const UnipileSearchResponse = z.looseObject({ items: z.array(z.unknown()), cursor: z.string().nullish() });

/** GET /users/relations */
export const UnipileRelation = z.looseObject({
  member_id: z.string().min(1),
  public_identifier: text,
  public_profile_url: text,
  created_at: z.number().nullish(),
});
export const UnipileRelationsResponse = z.looseObject({ items: z.array(z.unknown()), cursor: z.unknown().nullish() });

/** GET /accounts and GET /accounts/{id} */
export const UnipileAccount = z.looseObject({
  id: z.string().min(1),
  type: text,
  name: text,
  connection_params: z.looseObject({ im: z.looseObject({ premiumFeatures: z.array(z.string()).nullish() }).nullish() }).nullish(),
  sources: z.array(z.looseObject({ status: text })).nullish(),
});
export type UnipileAccount = z.infer<typeof UnipileAccount>;
export const UnipileAccountsResponse = z.looseObject({ items: z.array(z.unknown()), cursor: z.string().nullish() });

/** GET /linkedin/search/parameters */
export const UnipileSearchParameters = z.looseObject({ items: z.array(z.looseObject({ id: z.string().min(1), title: text })) });

/** One `items[]` entry of GET /users/{identifier}/posts (LinkedIn variant); `social_id` is what reactions take. */
export const UnipilePost = z.looseObject({
  social_id: z.string().min(1),
  is_repost: z.boolean().nullish(),
  parsed_datetime: text,
  // The reaction the account left, or `true`/`false` when Unipile gives no detail (its schema
  // types it as boolean or string): a boolean must not make the post unreadable.
  user_reacted: z.union([z.boolean(), z.string()]).nullish(),
  permissions: z.looseObject({ can_react: z.boolean().nullish() }).nullish(),
});
export type UnipilePost = z.infer<typeof UnipilePost>;
export const UnipilePostList = z.looseObject({ items: z.array(z.unknown()), cursor: z.unknown().nullish() });

export const InvitationSent = z.looseObject({ invitation_id: z.string().nullish(), usage: z.number().nullish() });
export const ChatStarted = z.looseObject({ chat_id: z.string().nullish(), message_id: z.string().nullish() });
export const MessageSent = z.looseObject({ message_id: z.string().nullish() });

const MAX_EXPERIENCE = 10;
const PROFILE_BASE = 'https://www.linkedin.com/in/';

/**
 * The profile URL of a public identifier (the `/in/<slug>` part), normalised like lead URLs.
 * Null when the identifier cannot be one.
 */
export function networkUrlForIdentifier(identifier: string | null | undefined): string | null {
  if (!identifier) return null;
  return normalizeProfileUrl(PROFILE_BASE + encodeURIComponent(identifier));
}

/**
 * The best profile URL for a person: from the public identifier, else a public profile URL,
 * else LinkedIn's provider-id URL (which redirects to the profile; its case is kept because
 * provider ids are case-sensitive).
 */
export function networkUrlFor(p: { public_identifier?: string | null; public_profile_url?: string | null }, providerId: string): string {
  return (
    networkUrlForIdentifier(p.public_identifier) ??
    (p.public_profile_url ? normalizeProfileUrl(p.public_profile_url) : null) ??
    PROFILE_BASE + encodeURIComponent(providerId)
  );
}

/** `VP Sales at Acme | Speaker` → title `VP Sales`, company `Acme`. */
export function splitHeadline(headline: string | null | undefined): { jobTitle: string; companyName: string } {
  const first = (headline ?? '').split(/\s[|·•]\s/)[0]?.trim() ?? '';
  const match = /^(.+?)\s+(?:at|@|chez|bei|en)\s+(.+)$/i.exec(first) ?? /^(.+?)\s*@\s*(.+)$/.exec(first);
  if (match) return { jobTitle: (match[1] ?? '').trim(), companyName: (match[2] ?? '').trim() };
  return { jobTitle: first, companyName: '' };
}

const pad = (n: number): string => String(n).padStart(2, '0');
const ym = (year: number, month: number): string | null =>
  Number.isInteger(year) && year >= 1900 && year <= 2200 && Number.isInteger(month) && month >= 1 && month <= 12 ? `${year}-${pad(month)}` : null;

/**
 * `YYYY-MM` from the date forms Unipile is seen to use. The docs type these as plain strings
 * without a format, so we read `YYYY-MM[-DD…]`, `M/YYYY`, `M/D/YYYY`, `YYYY`, `{year, month}`
 * and anything `Date.parse` understands; a year alone becomes January.
 */
export function yearMonth(value: z.infer<typeof DatePart>): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'object') return typeof value.year === 'number' ? ym(value.year, value.month ?? 1) : null;
  const s = value.trim();
  let m = /^(\d{4})-(\d{1,2})(?:$|[-T])/.exec(s);
  if (m) return ym(Number(m[1]), Number(m[2]));
  m = /^(\d{1,2})\/(\d{4})$/.exec(s);
  if (m) return ym(Number(m[2]), Number(m[1]));
  m = /^(\d{1,2})\/\d{1,2}\/(\d{4})$/.exec(s);
  if (m) return ym(Number(m[2]), Number(m[1]));
  m = /^(\d{4})$/.exec(s);
  if (m) return ym(Number(m[1]), 1);
  const at = Date.parse(s);
  if (Number.isNaN(at)) return null;
  const d = new Date(at);
  return ym(d.getUTCFullYear(), d.getUTCMonth() + 1);
}

type UnipileExperienceItem = z.infer<typeof UnipileExperience>;
const isCurrent = (e: UnipileExperienceItem): boolean => e.current === true || (e.current !== false && (e.end === null || e.end === undefined || e.end === ''));

/** Newest first: current positions, then by start month, latest first; at most 10. */
export function mapExperience(items: readonly UnipileExperienceItem[]): Experience[] {
  return items
    .map((e, i) => ({ e, i, current: isCurrent(e), start: yearMonth(e.start) }))
    .sort((a, b) => Number(b.current) - Number(a.current) || (b.start ?? '').localeCompare(a.start ?? '') || a.i - b.i)
    .slice(0, MAX_EXPERIENCE)
    .map(({ e, current, start }) => ({
      company: e.company?.trim() || null,
      position: e.position?.trim() || null,
      location: e.location?.trim() || null,
      description: e.description?.trim() || null,
      start,
      end: current ? null : yearMonth(e.end),
    }));
}

const companyPage = (companyId: string | null | undefined): string => (companyId ? `https://www.linkedin.com/company/${encodeURIComponent(companyId)}` : '');

/** A Unipile profile as our profile; `full` adds `about` and `experience`. */
export function mapProfile(p: UnipileProfile, full: boolean, fallbackUrl: string): Profile | FullProfile {
  const experience = mapExperience(p.work_experience ?? []);
  const current = (p.work_experience ?? []).find(isCurrent);
  const fromHeadline = splitHeadline(p.headline);
  const profile: Profile = {
    fullName: composeFullName(null, p.first_name, p.last_name) ?? '',
    firstName: p.first_name?.trim() ?? '',
    lastName: p.last_name?.trim() ?? '',
    headline: p.headline?.trim() ?? '',
    jobTitle: current?.position?.trim() || fromHeadline.jobTitle,
    companyName: current?.company?.trim() || fromHeadline.companyName,
    companyNetwork: companyPage(current?.company_id),
    website: p.websites?.find((w) => w.trim() !== '')?.trim() ?? null,
    location: p.location?.trim() ?? '',
    networkUrl: networkUrlForIdentifier(p.public_identifier) ?? fallbackUrl,
    providerId: p.provider_id,
    profilePictureUrl: p.profile_picture_url ?? '',
  };
  return full ? { ...profile, about: p.summary?.trim() || null, experience } : profile;
}

/** A search hit as our search result. */
export function mapSearchPerson(p: UnipileSearchPerson): SearchResult {
  const position = p.current_positions?.[0];
  const fromHeadline = splitHeadline(p.headline);
  return {
    fullName: composeFullName(p.name, p.first_name, p.last_name) ?? '',
    headline: p.headline?.trim() ?? '',
    jobTitle: position?.role?.trim() || fromHeadline.jobTitle,
    companyName: position?.company?.trim() || fromHeadline.companyName,
    location: p.location?.trim() ?? '',
    networkUrl: networkUrlFor(p, p.id),
    providerId: p.id,
    profilePictureUrl: p.profile_picture_url ?? '',
  };
}

/** A search hit as a full `Profile` (lookalike candidates), with what search knows. */
export function searchPersonAsProfile(p: UnipileSearchPerson): Profile {
  const r = mapSearchPerson(p);
  const [firstName = '', ...rest] = r.fullName.split(' ');
  return {
    ...r,
    firstName: p.first_name?.trim() ?? firstName,
    lastName: p.last_name?.trim() ?? rest.join(' '),
    companyNetwork: companyPage(p.current_positions?.[0]?.company_id),
    website: null,
  };
}

/**
 * Account status from the statuses of its sources (the sync workers behind an account):
 * credentials or permissions trouble means the owner must reconnect (`disconnected`); an error
 * or a stop (or a status we do not know) is `failed`; no source yet, or one still starting, is
 * `connecting`; all `OK` is `connected`. Statuses per the Unipile SDK: OK, STOPPED, ERROR,
 * CREDENTIALS, PERMISSIONS, CONNECTING.
 */
export function accountStatus(a: UnipileAccount): AccountStatus {
  const statuses = (a.sources ?? []).map((s) => (s.status ?? '').toUpperCase());
  if (statuses.some((s) => s === 'CREDENTIALS' || s === 'PERMISSIONS')) return 'disconnected';
  if (statuses.some((s) => s !== 'OK' && s !== 'CONNECTING')) return 'failed';
  if (statuses.length === 0 || statuses.some((s) => s === 'CONNECTING')) return 'connecting';
  return 'connected';
}

export const hasSalesNavigator = (a: UnipileAccount): boolean =>
  (a.connection_params?.im?.premiumFeatures ?? []).some((f) => f.toLowerCase() === 'sales_navigator');
