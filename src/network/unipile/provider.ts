import { CONNECTION_NOTE_MAX } from '../../core/outreach/limits.js';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import type { EndorseResult, EndorseSkillInput } from '../../core/steps/endorse.js';
import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { normalizeProfileUrl, profileSlug } from '../../core/leads/url.js';
import {
  networkError,
  type AccountHealth,
  type AccountRef,
  type FullProfile,
  type InboundEvent,
  type InMailResult,
  INMAIL_SUBJECT_MAX,
  INMAIL_TEXT_MAX,
  type LikeLatestPostInput,
  type LikeResult,
  type LookalikeInput,
  type LookalikePage,
  type LookupProfileInput,
  type NetworkProvider,
  type Profile,
  type ProfileRef,
  type SearchPage,
  type SearchPeopleInput,
  type SendConnectionRequestInput,
  type SendInMailInput,
  type SendMessageInput,
  type VisitProfileInput,
  type HostedSignIn,
  type HostedSignInInput,
  type WithdrawInvitationInput,
} from '../../core/network/provider.js';
import { fetchUnipileAccounts, toProviderAccount, type AccountSyncResult } from './accounts.js';
import { baseUrlFromDsn, type UnipileConfig } from './config.js';
import { fingerprint, unwrapCursor, wrapCursor } from './cursor.js';
import { codeFor, toNetworkError, UnipileHttpError, type CallContext } from './errors.js';
import { UnipileHttp } from './http.js';
import { handleUnipileWebhook, unipileWebhook, type WebhookOutcome } from './inbound.js';
import { hostedNotifyWebhook, requestHostedLink } from './hosted-auth.js';
import { countryName, LookalikeCursor, matchesKeywords, normalizeLookalike, titleFilter } from './lookalike.js';
import {
  accountStatus,
  ChatStarted,
  hasSalesNavigator,
  InvitationSent,
  mapProfile,
  mapSearchPerson,
  MessageSent,
  networkUrlFor,
  searchPersonAsProfile,
  UnipileAccount,
  UnipilePost,
  UnipilePostList,
  UnipileProfile,
  UnipileSearchParameters,
  UnipileSearchPerson,
  UnipileSearchResponse,
} from './mapping.js';
import { parseOrUpstream } from './parse.js';
import { pollRelations, RELATIONS_POLL_DEFAULTS, type RelationsPollOptions, type RelationsPollResult } from './relations.js';
import { acceptEventId, type UnipileStore } from './store.js';

export interface UnipileDeps {
  /** Where the adapter keeps its state and records account changes (core/network/unipile-store.ts). */
  store: UnipileStore;
  /** Wall time: stamps received events and invitations, and paces account sync and relations polls. */
  clock: Clock;
  log: Logger;
  /** An undici dispatcher; tests pass one with short timeouts. */
  dispatcher?: Dispatcher;
  /** Per attempt. Default 30 s: searches and profile syncs are slow on LinkedIn's side. */
  timeoutMs?: number;
  /** Extra attempts for reads and searches. Default 2. */
  maxRetries?: number;
  /** Longest Retry-After we wait out before failing. Default 10 s. */
  maxRetryDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** How often `drainInbound` refreshes accounts from GET /accounts. Default 10 minutes. */
  accountSyncIntervalMs?: number;
  /** How often `drainInbound` runs the relations poll. Default 3 hours (Unipile advises against frequent polls). */
  relationsPollIntervalMs?: number;
  relationsPoll?: Partial<RelationsPollOptions>;
}

/** Posts read to find the latest own one: reposts come first when the person shares a lot. */
const POSTS_PAGE = 10;

/** The newest post that is the person's own (not a repost) and that the account may react to; null when none. */
function latestOwnPost(items: readonly unknown[]): UnipilePost | null {
  const own = items.flatMap((item) => {
    const parsed = UnipilePost.safeParse(item);
    return parsed.success && !parsed.data.is_repost && parsed.data.permissions?.can_react !== false ? [parsed.data] : [];
  });
  const time = (p: UnipilePost): number => (p.parsed_datetime ? Date.parse(p.parsed_datetime) : Number.NaN);
  // Unipile lists newest first; a readable date wins over the order when the two disagree.
  return own.reduce<UnipilePost | null>((best, p) => (best === null || time(p) > time(best) ? p : best), null);
}

/** Unipile's documented page caps: classic search should not exceed 50, Sales Navigator 100. */
export const SEARCH_PAGE_MAX = { classic: 50, sales_nav: 100 } as const;
const DRAIN_BATCH = 500;

/**
 * `sendConnectionRequest` answers for the two "nothing to send" outcomes, which are success for
 * the engine: the person is already a connection (an `invitation_accepted` event is queued at
 * once), or an invitation is already pending (its acceptance arrives like any other).
 */
export const alreadyConnectedId = (providerId: string): string => `unipile_already_connected_${providerId}`;
export const alreadyInvitedId = (providerId: string): string => `unipile_already_invited_${providerId}`;

const invalid = (field: string | string[], message: string): ApiError =>
  networkError('validation_error', message, { fields: Array.isArray(field) ? field : [field] });

/** What a search cursor carries besides its query fingerprint: Unipile's cursor. */
const SearchCursor = z.object({ c: z.string().min(1) });

/** Provider-id forms of LinkedIn member ids: classic ACo…, Sales Navigator ACw…, Recruiter AEM…. */
const PROVIDER_ID = /^(?:ACo|ACw|AEM)[A-Za-z0-9_-]+$/;
const SALES_NAV_ID = /^ACw/;
/** A member id of a paid product (Sales Navigator, Recruiter): each product names a member by its own id. */
const PRODUCT_MEMBER_ID = /^(?:ACw|AEM)/;

/**
 * The identifier to ask Unipile for: the URL's slug, lower-cased like the normalised URL,
 * except a provider id in the URL, whose case matters.
 */
function identifierOf(rawUrl: string, normalized: string): string {
  const slug = profileSlug(normalized);
  try {
    const raw = decodeURIComponent(/\/in\/([^/]+)/.exec(new URL(rawUrl.trim()).pathname)?.[1] ?? '');
    return PROVIDER_ID.test(raw) ? raw : slug;
  } catch {
    return slug;
  }
}

/**
 * The production network provider over Unipile's v1 API (docs/unipile.md). Stateless calls go
 * straight to Unipile; inbound events (webhooks and the relations poll) wait in SQLite until
 * `drainInbound`, which also triggers the periodic account sync and relations poll.
 */
/** GET /users/{identifier} with `linkedin_sections=skills`: each skill with the id an endorsement names and whether the account endorsed it. */
/** POST /linkedin/profile/endorse's answer: `endorsed` says whether LinkedIn took it. */
const UnipileEndorsed = z.looseObject({ endorsed: z.boolean().nullish() });

const UnipileSkills = z.looseObject({
  skills: z
    .array(z.looseObject({ name: z.string().min(1), endorsement_id: z.union([z.number(), z.string().min(1)]).nullish(), endorsed: z.boolean().nullish() }))
    .nullish(),
});

export class UnipileProvider implements NetworkProvider, HostedSignIn {
  readonly store: UnipileStore;
  private readonly http: UnipileHttp;
  readonly clock: Clock;
  readonly log: Logger;
  private readonly intervals: { accounts: number; relations: number };
  private readonly relationsOptions: RelationsPollOptions;
  private lastAccountSync = Number.NEGATIVE_INFINITY;
  private lastRelationsPoll = Number.NEGATIVE_INFINITY;
  private maintenance: Promise<void> | null = null;
  private localIds = 0;
  private readonly inboundSecret: string;
  private readonly baseUrl: string;
  private readonly publicUrl: string | undefined;
  private readonly hostedChecks = new Set<Promise<unknown>>();

  constructor(config: UnipileConfig, deps: UnipileDeps) {
    const baseUrl = baseUrlFromDsn(config.dsn);
    if (baseUrl === null) throw new Error('unipile: the DSN is not a host[:port]');
    this.inboundSecret = config.inboundSecret;
    this.baseUrl = baseUrl;
    this.publicUrl = config.publicUrl;
    this.clock = deps.clock;
    this.log = deps.log.child({ component: 'unipile' });
    this.store = deps.store;
    this.http = new UnipileHttp({
      baseUrl,
      apiKey: config.apiKey,
      dispatcher: deps.dispatcher,
      timeoutMs: deps.timeoutMs ?? 30_000,
      maxRetries: deps.maxRetries ?? 2,
      maxRetryDelayMs: deps.maxRetryDelayMs ?? 10_000,
      sleep: deps.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      wallClock: deps.clock,
      log: this.log,
    });
    this.intervals = { accounts: deps.accountSyncIntervalMs ?? 10 * 60_000, relations: deps.relationsPollIntervalMs ?? 3 * 3600_000 };
    this.relationsOptions = { ...RELATIONS_POLL_DEFAULTS, ...deps.relationsPoll };
  }

  lookupProfile(input: LookupProfileInput & { depth: 'full' }): Promise<FullProfile>;
  lookupProfile(input: LookupProfileInput): Promise<Profile | FullProfile>;
  async lookupProfile(input: LookupProfileInput): Promise<Profile | FullProfile> {
    const url = normalizeProfileUrl(input.networkUrl);
    if (url === null) throw invalid('networkUrl', 'Give a personal profile URL like https://www.linkedin.com/in/<slug>.');
    const identifier = this.identifierFor(input.networkUrl, url);
    // A Sales Navigator member id (ACw…) is read through Sales Navigator by an account that has
    // it; any other account reads it in the classic API, which answers with the classic profile
    // (Unipile's documented conversion, as before a send).
    const salesNav = SALES_NAV_ID.test(identifier) && input.account.hasSalesNavigator;
    const accountId = this.providerAccount(input.account);
    const full = input.depth === 'full';
    const body = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(identifier)}`,
      query: { account_id: accountId, linkedin_sections: full ? '*' : 'experience', linkedin_api: salesNav ? 'sales_navigator' : undefined },
      idempotent: true,
      ctx: { kind: 'read', salesNav },
    });
    const profile = parseOrUpstream(UnipileProfile, body, this.log, 'GET /users/{identifier}');
    const mapped = mapProfile(profile, full, url);
    this.store.rememberContact(profile.provider_id, url, this.clock.now());
    return mapped;
  }

  async searchPeople(input: SearchPeopleInput): Promise<SearchPage> {
    if ((input.query === undefined) === (input.url === undefined)) throw invalid(['query', 'url'], 'Give exactly one of query or url.');
    if (input.type === 'sales_nav' && !input.account.hasSalesNavigator) {
      throw networkError('sales_nav_required', 'This account has no Sales Navigator. Run a classic search or use an account with Sales Navigator.');
    }
    const accountId = this.providerAccount(input.account);
    const salesNav = input.type === 'sales_nav';
    const scope = fingerprint('search', input.type, input.query ?? null, input.url ?? null);
    const upstreamCursor = input.cursor ? unwrapCursor(scope, input.cursor, SearchCursor).c : undefined;
    const body = input.url !== undefined ? { url: input.url } : { api: salesNav ? 'sales_navigator' : 'classic', category: 'people', keywords: input.query };
    const page = await this.search(accountId, body, Math.min(Math.max(1, input.limit), SEARCH_PAGE_MAX[input.type]), upstreamCursor, {
      kind: 'search',
      salesNav,
      contentField: input.url !== undefined ? 'url' : 'query',
    });
    const now = this.clock.now();
    const results = page.people.map((p) => {
      const r = mapSearchPerson(p);
      this.store.rememberContact(r.providerId, r.networkUrl, now);
      return r;
    });
    return { results, cursor: page.cursor ? wrapCursor(scope, { c: page.cursor }) : null };
  }

  async sendConnectionRequest(input: SendConnectionRequestInput): Promise<{ invitationId: string }> {
    const note = input.note === null ? '' : input.note.trim();
    if ([...note].length > CONNECTION_NOTE_MAX) throw invalid('note', `A connection note holds at most ${CONNECTION_NOTE_MAX} characters.`);
    const accountId = this.providerAccount(input.account);
    const person = await this.resolvePerson(input, accountId, '');
    const now = this.clock.now();
    const ctx: CallContext = { kind: 'send', salesNav: false, contentField: 'note' };
    try {
      const body = await this.http.call({
        method: 'POST',
        path: '/users/invite',
        json: { account_id: accountId, provider_id: person.providerId, ...(note !== '' ? { message: note } : {}) },
        idempotent: false,
        ctx,
      });
      const sent = parseOrUpstream(InvitationSent, body, this.log, 'POST /users/invite');
      // `usage` is the share of LinkedIn's limit used, sent only when crossing 50/75/90/95 %.
      if (typeof sent.usage === 'number')
        this.log[sent.usage >= 90 ? 'warn' : 'info']({ accountId: input.account.id, usage: sent.usage }, 'unipile invitation quota usage');
      this.store.recordInvitation(input.account.id, person.providerId, now, sent.invitation_id || null);
      return { invitationId: sent.invitation_id || this.localId('inv', person.providerId) };
    } catch (err) {
      if (err instanceof UnipileHttpError && err.slug === 'already_connected') {
        this.store.recordInvitation(input.account.id, person.providerId, now);
        this.store.enqueue(
          {
            id: acceptEventId(input.account.id, person.providerId),
            type: 'invitation_accepted',
            accountId: input.account.id,
            networkUrl: person.networkUrl,
            providerId: person.providerId,
            at: now,
          },
          now,
        );
        this.store.markAccepted(input.account.id, person.providerId, now);
        return { invitationId: alreadyConnectedId(person.providerId) };
      }
      if (err instanceof UnipileHttpError && (err.slug === 'already_invited_recently' || err.slug === 'action_already_performed')) {
        this.store.recordInvitation(input.account.id, person.providerId, now);
        return { invitationId: alreadyInvitedId(person.providerId) };
      }
      throw this.mapped(err, ctx);
    }
  }

  async sendMessage(input: SendMessageInput): Promise<{ chatId: string; messageId: string }> {
    if (input.text.trim() === '') throw invalid('text', 'The message text is empty.');
    const accountId = this.providerAccount(input.account);
    const ctx: CallContext = { kind: 'send', salesNav: false, contentField: 'text' };
    if (input.chatId) {
      try {
        const body = await this.http.call({
          method: 'POST',
          path: `/chats/${encodeURIComponent(input.chatId)}/messages`,
          // account_id makes Unipile refuse a chat that belongs to another account.
          form: [
            ['account_id', accountId],
            ['text', input.text],
          ],
          idempotent: false,
          ctx,
        });
        const sent = parseOrUpstream(MessageSent, body, this.log, 'POST /chats/{chat_id}/messages');
        return { chatId: input.chatId, messageId: sent.message_id || this.localId('msg', input.chatId) };
      } catch (err) {
        // A chat that no longer exists (deleted, or from another account): open a new one instead.
        if (!(err instanceof UnipileHttpError && codeFor(err.status, err.slug, ctx) === 'not_found')) throw this.mapped(err, ctx);
        this.log.info({ accountId: input.account.id }, 'unipile chat not found; starting a new chat');
      }
    }
    const person = await this.resolvePerson(input.recipient, accountId, 'recipient.');
    try {
      const body = await this.http.call({
        method: 'POST',
        path: '/chats',
        form: [
          ['account_id', accountId],
          ['text', input.text],
          ['attendees_ids', person.providerId],
        ],
        idempotent: false,
        ctx,
      });
      const started = parseOrUpstream(ChatStarted, body, this.log, 'POST /chats');
      // chat_id is nullable in the docs; an empty one means "unknown": the next send opens the chat again.
      return { chatId: started.chat_id ?? '', messageId: started.message_id || this.localId('msg', person.providerId) };
    } catch (err) {
      throw this.mapped(err, ctx);
    }
  }

  /**
   * Withdraws a pending invitation: DELETE /users/invite/sent/{invitation_id}?account_id=…
   * (Unipile's "cancel a sent invitation"). The id is the one POST /users/invite returned; an
   * invitation this server did not send, or whose id Unipile did not give, is `not_found`.
   */
  async withdrawInvitation(input: WithdrawInvitationInput): Promise<void> {
    const accountId = this.providerAccount(input.account);
    const person = await this.resolvePerson(input, accountId, '');
    const invitationId = this.store.invitationIdFor(input.account.id, person.providerId);
    if (invitationId === null) throw networkError('not_found', 'No pending invitation to this person is known; nothing was withdrawn.');
    const ctx: CallContext = { kind: 'send', salesNav: false };
    try {
      await this.http.call({
        method: 'DELETE',
        path: `/users/invite/sent/${encodeURIComponent(invitationId)}`,
        query: { account_id: accountId },
        idempotent: true,
        ctx,
      });
    } catch (err) {
      throw this.mapped(err, ctx);
    }
    this.store.forgetInvitation(input.account.id, person.providerId);
  }

  /**
   * A visit is a profile read with `notify=true` (GET /users/{identifier}), Unipile's documented
   * switch for telling the person of the view; nothing else is asked for, so it costs LinkedIn
   * one profile request.
   */
  async visitProfile(input: VisitProfileInput): Promise<Profile> {
    const url = input.networkUrl !== undefined ? normalizeProfileUrl(input.networkUrl) : null;
    if (input.networkUrl !== undefined && url === null) throw invalid('networkUrl', 'Give a personal profile URL like https://www.linkedin.com/in/<slug>.');
    const identifier = input.providerId ?? (input.networkUrl !== undefined && url !== null ? this.identifierFor(input.networkUrl, url) : null);
    if (identifier === null) throw invalid(['networkUrl', 'providerId'], 'Give the profile URL or the provider id.');
    const accountId = this.providerAccount(input.account);
    const body = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(identifier)}`,
      query: { account_id: accountId, notify: 'true' },
      idempotent: true,
      ctx: { kind: 'read', salesNav: false },
    });
    const profile = parseOrUpstream(UnipileProfile, body, this.log, 'GET /users/{identifier}');
    const mapped = mapProfile(profile, false, url ?? '');
    this.store.rememberContact(profile.provider_id, url ?? mapped.networkUrl, this.clock.now());
    return mapped;
  }

  /**
   * Likes the person's latest own post: GET /users/{provider_id}/posts (newest first, one page
   * of 10), the first that is not a repost and may be reacted to, then POST /posts/reaction with
   * its `social_id`. A post the account already reacted to counts as liked without a second call.
   */
  async likeLatestPost(input: LikeLatestPostInput): Promise<LikeResult> {
    const accountId = this.providerAccount(input.account);
    const person = await this.resolvePerson(input, accountId, '');
    const body = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(person.providerId)}/posts`,
      query: { account_id: accountId, limit: POSTS_PAGE },
      idempotent: true,
      ctx: { kind: 'read', salesNav: false },
    });
    const page = parseOrUpstream(UnipilePostList, body, this.log, 'GET /users/{identifier}/posts');
    const post = latestOwnPost(page.items);
    if (post === null) return { outcome: 'no_posts' };
    if (post.user_reacted) return { outcome: 'liked', postId: post.social_id };
    await this.call({
      method: 'POST',
      path: '/posts/reaction',
      json: { account_id: accountId, post_id: post.social_id, reaction_type: 'like' },
      // Liking a post twice leaves one like: safe to repeat.
      idempotent: true,
      ctx: { kind: 'send', salesNav: false },
    });
    return { outcome: 'liked', postId: post.social_id };
  }

  /**
   * Endorses one of the person's skills. Unipile documents "Endorse a user profile specific
   * skill" (POST /linkedin/profile/endorse with the account, the person's provider id and the
   * skill's `endorsement_id`, which the profile lists with each skill): first the person's skills
   * (GET /users/{provider_id} with `linkedin_sections=skills`), then the endorsement. `skill`
   * names one (any case); null takes the first the account has not endorsed. A skill the person
   * does not list, one LinkedIn offers no endorsement for, or one Unipile answers `endorsed:
   * false` to, is `no_skill`; a skill endorsed
   * already counts as endorsed without a second call.
   */
  async endorseSkill(input: EndorseSkillInput): Promise<EndorseResult> {
    const accountId = this.providerAccount(input.account);
    const person = await this.resolvePerson(input, accountId, '');
    const body = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(person.providerId)}`,
      query: { account_id: accountId, linkedin_sections: 'skills' },
      idempotent: true,
      ctx: { kind: 'read', salesNav: false },
    });
    const profile = parseOrUpstream(UnipileSkills, body, this.log, 'GET /users/{identifier}');
    const offered = (profile.skills ?? []).filter((s) => s.endorsement_id !== null && s.endorsement_id !== undefined);
    const wanted = input.skill?.trim().toLowerCase() ?? null;
    const skill = wanted === null ? offered.find((s) => s.endorsed !== true) : offered.find((s) => s.name.trim().toLowerCase() === wanted);
    if (skill === undefined) return { outcome: 'no_skill' };
    if (skill.endorsed === true) return { outcome: 'endorsed', skill: skill.name };
    const answer = await this.call({
      method: 'POST',
      path: '/linkedin/profile/endorse',
      json: { account_id: accountId, profile_id: person.providerId, skill_endorsement_id: Number(skill.endorsement_id) },
      // Endorsing a skill twice leaves one endorsement: safe to repeat.
      idempotent: true,
      ctx: { kind: 'send', salesNav: false },
    });
    // Unipile answers `{ endorsed }`: false means LinkedIn did not take it (the person does not
    // accept endorsements of it), so there was no skill this account could endorse.
    if (UnipileEndorsed.safeParse(answer).data?.endorsed === false) return { outcome: 'no_skill' };
    return { outcome: 'endorsed', skill: skill.name };
  }

  /**
   * A Sales Navigator InMail: the person's Sales Navigator id (GET /users/{identifier} with
   * `linkedin_api=sales_navigator`; a message through Sales Navigator must be addressed by it),
   * then POST /chats with `subject` and `linkedin[api]=sales_navigator`. Unipile's
   * `not_allowed_inmail` and `user_unreachable` are the person's `unreachable`, and
   * `insufficient_credits` the account's `no_credits`.
   */
  async sendInMail(input: SendInMailInput): Promise<InMailResult> {
    if (!input.account.hasSalesNavigator) {
      throw networkError('sales_nav_required', 'InMail needs Sales Navigator on the account. Use an account with Sales Navigator.');
    }
    if (input.subject.trim() === '' || [...input.subject].length > INMAIL_SUBJECT_MAX) {
      throw invalid('subject', `An InMail subject holds 1 to ${INMAIL_SUBJECT_MAX} characters.`);
    }
    if (input.text.trim() === '' || [...input.text].length > INMAIL_TEXT_MAX) throw invalid('text', `An InMail holds 1 to ${INMAIL_TEXT_MAX} characters.`);
    const accountId = this.providerAccount(input.account);
    const salesNavId = await this.salesNavigatorId(input.recipient, accountId);
    const ctx: CallContext = { kind: 'send', salesNav: true, contentField: 'text' };
    try {
      const body = await this.http.call({
        method: 'POST',
        path: '/chats',
        form: [
          ['account_id', accountId],
          ['text', input.text],
          ['subject', input.subject],
          ['attendees_ids', salesNavId],
          ['linkedin[api]', 'sales_navigator'],
        ],
        idempotent: false,
        ctx,
      });
      const started = parseOrUpstream(ChatStarted, body, this.log, 'POST /chats');
      return { outcome: 'sent', chatId: started.chat_id ?? '', messageId: started.message_id || this.localId('inmail', salesNavId) };
    } catch (err) {
      if (err instanceof UnipileHttpError && (err.slug === 'not_allowed_inmail' || err.slug === 'user_unreachable')) return { outcome: 'unreachable' };
      if (err instanceof UnipileHttpError && err.slug === 'insufficient_credits') return { outcome: 'no_credits' };
      throw this.mapped(err, ctx);
    }
  }

  async lookalikeCandidates(input: LookalikeInput): Promise<LookalikePage> {
    const q = normalizeLookalike(input);
    const accountId = input.account ? this.providerAccount(input.account) : this.anyConnectedAccount();
    const limit = Math.min(Math.max(1, input.limit), SEARCH_PAGE_MAX.classic);
    let state: { b: Record<string, unknown>; c?: string; p: string };
    if (input.cursor) {
      state = unwrapCursor(q.scope, input.cursor, LookalikeCursor);
    } else {
      const built = await this.lookalikeSearch(accountId, q);
      if (built === null) return { candidates: [], cursor: null };
      state = built;
    }
    const page = await this.search(accountId, state.b, limit, state.c, { kind: 'search', salesNav: false });
    const now = this.clock.now();
    const candidates = page.people
      .filter((p) => p.id !== state.p)
      .map((p) => searchPersonAsProfile(p))
      .filter((c) => {
        this.store.rememberContact(c.providerId, c.networkUrl, now);
        return matchesKeywords(c, q.jobTitleKeywords);
      });
    return { candidates, cursor: page.cursor ? wrapCursor(q.scope, { b: state.b, c: page.cursor, p: state.p }) : null };
  }

  /** Returns and acknowledges every due event (at most once), and starts any due account sync or relations poll. */
  async drainInbound(now: number): Promise<InboundEvent[]> {
    this.startMaintenance();
    const drained: InboundEvent[] = [];
    for (;;) {
      const batch = this.store.drain(now, DRAIN_BATCH);
      drained.push(...batch);
      if (batch.length < DRAIN_BATCH) return drained;
    }
  }

  async accountHealth(account: AccountRef): Promise<AccountHealth> {
    const id = this.store.providerAccountId(account.id);
    if (!id) return { status: 'disconnected', hasSalesNavigator: account.hasSalesNavigator };
    try {
      const body = await this.http.call({
        method: 'GET',
        path: `/accounts/${encodeURIComponent(id)}`,
        idempotent: true,
        ctx: { kind: 'account', salesNav: false },
      });
      const a = parseOrUpstream(UnipileAccount, body, this.log, 'GET /accounts/{id}');
      return { status: accountStatus(a), hasSalesNavigator: hasSalesNavigator(a) };
    } catch (err) {
      if (err instanceof UnipileHttpError && err.status === 404) return { status: 'disconnected', hasSalesNavigator: account.hasSalesNavigator };
      throw this.mapped(err, { kind: 'account', salesNav: false });
    }
  }

  /** Starts Unipile's hosted sign-in for our `connecting` account (see hosted-auth.ts). */
  async startHostedSignIn(input: HostedSignInInput): Promise<{ url: string }> {
    if (!this.publicUrl) {
      throw new ApiError(
        'upstream_unavailable',
        'This server does not know its public address, so the network could not report the sign-in back. Set UNIPILE_PUBLIC_URL (or unipile.publicUrl in --config) and retry.',
      );
    }
    const apiUrl = new URL(this.baseUrl).origin;
    try {
      return await requestHostedLink(this.http, this.log, { apiUrl, publicUrl: this.publicUrl, accountId: input.accountId, now: this.clock.now() });
    } catch (err) {
      throw this.mapped(err, { kind: 'account', salesNav: false });
    }
  }

  /** The endpoint for Unipile's hosted sign-in notify calls (see hosted-auth.ts). */
  hostedNotifyWebhook(path: string) {
    return hostedNotifyWebhook({ http: this.http, store: this.store, clock: this.clock, log: this.log }, path, this.hostedChecks);
  }

  /** Waits for hosted sign-in checks still talking to Unipile (tests and shutdown). */
  async hostedIdle(): Promise<void> {
    await Promise.all([...this.hostedChecks]);
  }

  /** Refreshes `accounts` from GET /accounts (the core verb syncProviderAccounts decides the changes). */
  async syncAccounts(): Promise<AccountSyncResult> {
    const list = await fetchUnipileAccounts(this.http, this.log);
    const result = this.store.syncAccounts(list.map(toProviderAccount), this.clock.now());
    this.lastAccountSync = this.clock.now();
    if (result.created.length || result.missing.length) this.log.info(result, 'unipile accounts synced');
    return result;
  }

  /** Looks for acceptances the `new_relation` webhook missed (see pollRelations). */
  async pollRelations(): Promise<RelationsPollResult> {
    const result = await pollRelations({ http: this.http, store: this.store, clock: this.clock, log: this.log }, this.relationsOptions);
    this.lastRelationsPoll = this.clock.now();
    return result;
  }

  /** Runs the account sync and the relations poll when due. Failures are logged; the next run retries. */
  async maintain(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastAccountSync >= this.intervals.accounts) {
      try {
        await this.syncAccounts();
      } catch (err) {
        this.lastAccountSync = now;
        this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'unipile account sync failed');
      }
    }
    if (now - this.lastRelationsPoll >= this.intervals.relations) await this.pollRelations();
  }

  /** Waits for the maintenance `drainInbound` started, if any (tests and shutdown). */
  async idle(): Promise<void> {
    await this.maintenance;
  }

  /** One webhook call; see handleUnipileWebhook. */
  handleWebhook(payload: unknown): WebhookOutcome {
    return handleUnipileWebhook({ store: this.store, clock: this.clock, log: this.log }, payload);
  }

  /** The inbound endpoint for the host to mount at `path`, guarded by the configured inbound secret. */
  webhook(path: string) {
    return unipileWebhook({ store: this.store, clock: this.clock, log: this.log }, this.inboundSecret, path);
  }

  private startMaintenance(): void {
    if (this.maintenance) return;
    // In the background, so a slow Unipile never delays the engine's drain.
    this.maintenance = this.maintain()
      .catch((err: unknown) => this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'unipile maintenance failed'))
      .finally(() => {
        this.maintenance = null;
      });
  }

  private async call(spec: Parameters<UnipileHttp['call']>[0]): Promise<unknown> {
    try {
      return await this.http.call(spec);
    } catch (err) {
      throw this.mapped(err, spec.ctx);
    }
  }

  private mapped(err: unknown, ctx: CallContext): ApiError {
    if (err instanceof UnipileHttpError) return toNetworkError(err, ctx, this.clock.now());
    if (err instanceof ApiError) return err;
    this.log.error({ err }, 'unipile call failed unexpectedly');
    return networkError('upstream_unavailable');
  }

  /** Unipile's id for the account; `account_disconnected` when the account is not linked to one. */
  private providerAccount(account: AccountRef): string {
    const id = this.store.providerAccountId(account.id);
    if (!id) {
      throw networkError('account_disconnected', 'This account is not linked to a Unipile account. Connect it in Unipile; the next account sync links it.', {
        accountId: account.id,
      });
    }
    return id;
  }

  private anyConnectedAccount(): string {
    const linked = this.store.linkedAccounts().filter((a) => a.status === 'connected');
    const chosen = linked.find((a) => a.hasSalesNavigator) ?? linked[0];
    if (!chosen) throw networkError('account_disconnected', 'No connected LinkedIn account to search with. Connect one in Unipile, then retry.');
    return chosen.providerAccountId;
  }

  /**
   * The identifier to read a profile by, from its URL. A lead added by a provider-id URL (a Sales
   * Navigator hit's, say) holds the id lower-cased, as every profile URL is stored; ids are
   * case-sensitive, so such a URL is read by the id an earlier call remembered for it, the
   * classic one when known.
   */
  private identifierFor(rawUrl: string, url: string): string {
    const identifier = identifierOf(rawUrl, url);
    if (PROVIDER_ID.test(identifier)) return identifier;
    const seen = this.store.providerIdsFor(url);
    const same = seen.find((id) => id.toLowerCase() === identifier);
    if (same === undefined) return identifier;
    return seen.find((id) => !PRODUCT_MEMBER_ID.test(id)) ?? same;
  }

  /**
   * The person's classic member id, which invitations, messages, posts and relations name, and
   * the URL the caller knows them by. A classic id is used as given; a profile URL is resolved
   * through what earlier calls learnt, else one profile lookup. A Sales Navigator or Recruiter
   * id (`ACw…`, `AEM…`: what a Sales Navigator search gives) is converted by reading the profile
   * in the classic API, as Unipile documents, once. The classic id is remembered under the
   * caller's URL, so an acceptance or a reply, which names the classic id, finds that URL (the
   * lead's) again.
   */
  private async resolvePerson(ref: ProfileRef, accountId: string, fieldPrefix: string): Promise<{ providerId: string; networkUrl: string }> {
    const url = ref.networkUrl !== undefined ? normalizeProfileUrl(ref.networkUrl) : null;
    if (ref.networkUrl !== undefined && url === null)
      throw invalid(`${fieldPrefix}networkUrl`, 'Give a personal profile URL like https://www.linkedin.com/in/<slug>.');
    if (ref.providerId && !PRODUCT_MEMBER_ID.test(ref.providerId)) {
      if (url === null)
        return {
          providerId: ref.providerId,
          networkUrl: this.store.contactUrl(ref.providerId) ?? `https://www.linkedin.com/in/${encodeURIComponent(ref.providerId)}`,
        };
      if (this.store.contactUrl(ref.providerId) !== url) this.store.rememberContact(ref.providerId, url, this.clock.now());
      return { providerId: ref.providerId, networkUrl: url };
    }
    const held = url ?? (ref.providerId ? this.store.contactUrl(ref.providerId) : null);
    if (held === null && !ref.providerId) throw invalid([`${fieldPrefix}networkUrl`, `${fieldPrefix}providerId`], 'Give the profile URL or the provider id.');
    const known = held !== null ? this.store.providerIdsFor(held).find((id) => !PRODUCT_MEMBER_ID.test(id)) : undefined;
    if (known) return { providerId: known, networkUrl: held as string };
    const identifier = ref.providerId || this.identifierFor(ref.networkUrl as string, url as string);
    const body = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(identifier)}`,
      query: { account_id: accountId },
      idempotent: true,
      ctx: { kind: 'read', salesNav: false },
    });
    const profile = parseOrUpstream(UnipileProfile, body, this.log, 'GET /users/{identifier}');
    const networkUrl = held ?? networkUrlFor(profile, profile.provider_id);
    this.store.rememberContact(profile.provider_id, networkUrl, this.clock.now());
    return { providerId: profile.provider_id, networkUrl };
  }

  /** The person's Sales Navigator member id (`ACw…`), asked of Unipile unless the reference is one. */
  private async salesNavigatorId(ref: ProfileRef, accountId: string): Promise<string> {
    if (ref.providerId && SALES_NAV_ID.test(ref.providerId)) return ref.providerId;
    const url = ref.networkUrl !== undefined ? normalizeProfileUrl(ref.networkUrl) : null;
    if (ref.networkUrl !== undefined && url === null)
      throw invalid('recipient.networkUrl', 'Give a personal profile URL like https://www.linkedin.com/in/<slug>.');
    const remembered = url !== null ? this.store.providerIdsFor(url).find((id) => SALES_NAV_ID.test(id)) : undefined;
    if (remembered) return remembered;
    const identifier = ref.providerId ?? (url !== null && ref.networkUrl !== undefined ? this.identifierFor(ref.networkUrl, url) : null);
    if (identifier === null) throw invalid(['recipient.networkUrl', 'recipient.providerId'], 'Give the profile URL or the provider id.');
    const body = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(identifier)}`,
      query: { account_id: accountId, linkedin_api: 'sales_navigator' },
      idempotent: true,
      ctx: { kind: 'read', salesNav: true },
    });
    return parseOrUpstream(UnipileProfile, body, this.log, 'GET /users/{identifier}').provider_id;
  }

  /** One POST /linkedin/search page: the people on it and Unipile's next cursor. */
  private async search(accountId: string, body: Record<string, unknown>, limit: number, cursor: string | undefined, ctx: CallContext) {
    const res = await this.call({
      method: 'POST',
      path: '/linkedin/search',
      query: { account_id: accountId, limit, cursor },
      json: body,
      idempotent: true,
      ctx,
    });
    const page = parseOrUpstream(UnipileSearchResponse, res, this.log, 'POST /linkedin/search');
    const people = page.items.flatMap((item) => {
      const parsed = UnipileSearchPerson.safeParse(item);
      return parsed.success && (parsed.data.type ?? 'PEOPLE').toUpperCase() === 'PEOPLE' ? [parsed.data] : [];
    });
    return { people, cursor: page.cursor || null };
  }

  /**
   * The classic people search for a lookalike pool: the seed's current title (or the given
   * keywords) as the title filter, and the seed's location (or the given countries) resolved to
   * LinkedIn location ids. Null when countries were given and none names a LinkedIn location:
   * nothing can match, so the pool is empty at once.
   */
  private async lookalikeSearch(accountId: string, q: ReturnType<typeof normalizeLookalike>): Promise<{ b: Record<string, unknown>; p: string } | null> {
    const seedBody = await this.call({
      method: 'GET',
      path: `/users/${encodeURIComponent(q.seed)}`,
      query: { account_id: accountId, linkedin_sections: 'experience' },
      idempotent: true,
      ctx: { kind: 'read', salesNav: false },
    });
    const seed = mapProfile(parseOrUpstream(UnipileProfile, seedBody, this.log, 'GET /users/{identifier}'), false, '');
    const title = titleFilter(q.jobTitleKeywords.length > 0 ? q.jobTitleKeywords : [seed.jobTitle]);
    const places = q.countries.length > 0 ? q.countries.map(countryName).filter((n): n is string => n !== null) : seed.location ? [seed.location] : [];
    const ids: string[] = [];
    for (const place of places) {
      const res = await this.call({
        method: 'GET',
        path: '/linkedin/search/parameters',
        query: { account_id: accountId, type: 'LOCATION', keywords: place, limit: 1 },
        idempotent: true,
        ctx: { kind: 'read', salesNav: false },
      });
      const first = parseOrUpstream(UnipileSearchParameters, res, this.log, 'GET /linkedin/search/parameters').items[0];
      if (first && /^\d+$/.test(first.id)) ids.push(first.id);
    }
    if (q.countries.length > 0 && ids.length === 0) return null;
    const b: Record<string, unknown> = { api: 'classic', category: 'people' };
    if (title) b.advanced_keywords = { title };
    if (ids.length > 0) b.location = ids;
    return { b, p: seed.providerId };
  }

  private localId(kind: string, key: string): string {
    this.localIds += 1;
    return `unipile_local_${kind}_${createHash('sha256').update(`${key}:${this.clock.now()}:${this.localIds}`).digest('hex').slice(0, 20)}`;
  }
}

/** The provider for a complete Unipile config. */
export function createUnipileProvider(config: UnipileConfig, deps: UnipileDeps): UnipileProvider {
  return new UnipileProvider(config, deps);
}
