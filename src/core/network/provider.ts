import { ApiError, type ErrorCode, type ErrorDetails } from '../errors.js';

/**
 * The network provider: everything the service asks of the professional network. The engine,
 * the REST/MCP tools and the provider adapters (the simulator, later a real one) all meet here.
 * Every method fails only with an `ApiError` whose code is a `NetworkErrorCode`.
 */
export interface NetworkProvider {
  lookupProfile(input: LookupProfileInput & { depth: 'full' }): Promise<FullProfile>;
  lookupProfile(input: LookupProfileInput): Promise<Profile | FullProfile>;
  searchPeople(input: SearchPeopleInput): Promise<SearchPage>;
  sendConnectionRequest(input: SendConnectionRequestInput): Promise<{ invitationId: string }>;
  sendMessage(input: SendMessageInput): Promise<{ chatId: string; messageId: string }>;
  /** Withdraws the account's pending invitation to the person; it can no longer be accepted. */
  withdrawInvitation(input: WithdrawInvitationInput): Promise<void>;
  /** Views the person's profile as the account, so the person is told of the visit; returns the profile seen. */
  visitProfile(input: VisitProfileInput): Promise<Profile>;
  /** Likes the person's latest own post (not a repost). A person with none is an outcome, not an error. */
  likeLatestPost(input: LikeLatestPostInput): Promise<LikeResult>;
  /**
   * Sends a Sales Navigator InMail to a person who need not be a connection. Needs Sales
   * Navigator on the account (`sales_nav_required` otherwise). A person who does not take
   * InMail, and an account out of InMail credits, are outcomes, not errors: nothing was sent.
   */
  sendInMail(input: SendInMailInput): Promise<InMailResult>;
  lookalikeCandidates(input: LookalikeInput): Promise<LookalikePage>;
  /** Inbound events due at `now`, oldest first. Each event is returned once. */
  drainInbound(now: number): Promise<InboundEvent[]>;
  accountHealth(account: AccountRef): Promise<AccountHealth>;
}

/** The caller has already checked that the account exists and belongs to the workspace. */
export interface AccountRef {
  id: string;
  hasSalesNavigator: boolean;
}

export type ProfileDepth = 'basic' | 'full';

export interface Profile {
  fullName: string;
  firstName: string;
  lastName: string;
  headline: string;
  jobTitle: string;
  companyName: string;
  /** Company page URL. */
  companyNetwork: string;
  website: string | null;
  location: string;
  networkUrl: string;
  providerId: string;
  profilePictureUrl: string;
}

export interface Experience {
  company: string | null;
  position: string | null;
  location: string | null;
  description: string | null;
  /** `YYYY-MM` */
  start: string | null;
  /** `YYYY-MM`; null for the current position. */
  end: string | null;
}

/** A profile looked up at `depth: 'full'`. `experience` is newest first, at most 10 entries. */
export interface FullProfile extends Profile {
  about: string | null;
  experience: Experience[];
}

export type SearchResult = Pick<Profile, 'fullName' | 'headline' | 'jobTitle' | 'companyName' | 'location' | 'networkUrl' | 'providerId' | 'profilePictureUrl'>;

/** A person on the network, by profile URL or by provider id. */
export type ProfileRef = { networkUrl: string; providerId?: string } | { providerId: string; networkUrl?: string };

export interface LookupProfileInput {
  account: AccountRef;
  networkUrl: string;
  depth: ProfileDepth;
}

export interface SearchPeopleInput {
  account: AccountRef;
  type: 'classic' | 'sales_nav';
  /** Exactly one of `query` and `url`. */
  query?: string;
  url?: string;
  limit: number;
  cursor?: string | null;
}

export interface SearchPage {
  results: SearchResult[];
  /** Null on the last page. */
  cursor: string | null;
}

export type SendConnectionRequestInput = ProfileRef & { account: AccountRef; note: string | null };

export type WithdrawInvitationInput = ProfileRef & { account: AccountRef };

export type VisitProfileInput = ProfileRef & { account: AccountRef };

export type LikeLatestPostInput = ProfileRef & { account: AccountRef };

export type LikeResult = { outcome: 'liked'; postId: string } | { outcome: 'no_posts' };

/** The network's limits on an InMail. */
export const INMAIL_SUBJECT_MAX = 200;
export const INMAIL_TEXT_MAX = 8000;

export interface SendInMailInput {
  account: AccountRef;
  recipient: ProfileRef;
  subject: string;
  text: string;
}

export type InMailResult =
  | { outcome: 'sent'; chatId: string; messageId: string }
  /** The person does not accept InMail from this account (settings, or LinkedIn refuses). */
  | { outcome: 'unreachable' }
  /** The account has no InMail credit left; LinkedIn renews them monthly. */
  | { outcome: 'no_credits' };

export interface SendMessageInput {
  account: AccountRef;
  recipient: ProfileRef;
  /** Continue an existing conversation; otherwise the provider finds or opens the chat. */
  chatId?: string;
  text: string;
}

export interface LookalikeInput {
  /** Optional: the Lookalike worker may run without a connected account. */
  account?: AccountRef;
  /** Profile URL or profile identifier (slug or provider id). Websites are not accepted. */
  seed: string;
  /** Partial, case-insensitive; a candidate matches when its title contains any of them. */
  jobTitleKeywords: string[];
  /** ISO 3166-1 alpha-2; empty for worldwide. */
  countries: string[];
  /** Null for the first page. */
  cursor: string | null;
  limit: number;
}

export interface LookalikePage {
  candidates: Profile[];
  /** Null when the pool for this seed and these filters is exhausted. */
  cursor: string | null;
}

interface InboundBase {
  /** Stable: the same event always carries the same id, so consumers can deduplicate. */
  id: string;
  accountId: string;
  networkUrl: string;
  providerId: string;
  /** Epoch milliseconds. */
  at: number;
}

export type InboundEvent = (InboundBase & { type: 'invitation_accepted' }) | (InboundBase & { type: 'message_received'; chatId: string; text: string });

export type AccountStatus = 'connected' | 'connecting' | 'failed' | 'disconnected';

/** An account as the provider lists it, for the account sync (core/accounts/sync.ts). */
export interface ProviderAccount {
  providerAccountId: string;
  /** The provider's display name; null when it has none. */
  name: string | null;
  status: AccountStatus;
  hasSalesNavigator: boolean;
}

export interface AccountHealth {
  status: AccountStatus;
  hasSalesNavigator: boolean;
}

/** The error codes a provider may throw; transports map them like any other `ApiError`. */
export const NETWORK_ERROR_CODES = [
  'account_disconnected',
  'sales_nav_required',
  'network_daily_quota',
  'send_failed',
  'upstream_unavailable',
  'not_found',
  'validation_error',
] as const satisfies readonly ErrorCode[];

export type NetworkErrorCode = (typeof NETWORK_ERROR_CODES)[number];

const DEFAULT_MESSAGES: Record<NetworkErrorCode, string> = {
  account_disconnected: 'The network account is not connected. Reconnect it, then retry; check list_accounts for its status.',
  sales_nav_required: 'This needs a working Sales Navigator seat on the account. Use a classic search or an account with Sales Navigator.',
  network_daily_quota: "The account reached the network's daily quota. Retry after the time in details.retryAfterSeconds.",
  send_failed: 'The network refused to deliver. Nothing was sent; check the recipient and retry later.',
  upstream_unavailable: 'The network is temporarily unavailable. Nothing was changed; retry shortly.',
  not_found: 'The network has no such profile. Check the profile URL or provider id.',
  validation_error: 'The network rejected the request input.',
};

/** Builds a provider failure. The message defaults to one that tells the caller what to do next. */
export function networkError(code: NetworkErrorCode, message?: string, details: ErrorDetails = {}): ApiError {
  return new ApiError(code, message ?? DEFAULT_MESSAGES[code], details);
}

/** What starting a hosted sign-in needs: our account id travels to the provider and back. */
export interface HostedSignInInput {
  accountId: string;
  name: string;
}

/**
 * A provider whose accounts are connected by a sign-in page it hosts (Unipile's hosted
 * auth). The provider later reports the outcome to the server, which marks the account.
 */
export interface HostedSignIn {
  startHostedSignIn(input: HostedSignInInput): Promise<{ url: string }>;
}

export const supportsHostedSignIn = (p: NetworkProvider): p is NetworkProvider & HostedSignIn =>
  typeof (p as Partial<HostedSignIn>).startHostedSignIn === 'function';
