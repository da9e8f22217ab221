import { CONNECTION_NOTE_MAX } from '../../core/outreach/limits.js';
import { msToNextUtcMidnight, type Clock } from '../../core/clock.js';
import type { ApiError } from '../../core/errors.js';
import {
  networkError,
  type AccountHealth,
  type AccountRef,
  type AccountStatus,
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
  type WithdrawInvitationInput,
} from '../../core/network/provider.js';
import { acceptanceDecision, postDecision, replyDecision } from './behaviour.js';
import { InMemorySimInboxStore, type SimInboxStore } from './inbox.js';
import { MARKERS, markerFailure, type SimOperation } from './markers.js';
import { basicProfile, networkUrlFor, providerIdFor, resolveProfileIdentifier, simPerson, slugFromNetworkUrl, slugFromProviderId } from './profiles.js';
import { hashHex, Rng } from './rng.js';
import type { EndorseResult, EndorseSkillInput } from '../../core/steps/endorse.js';

/** The skills the simulated people list, three each, drawn from the slug (see `simSkills`). */
export const SIM_SKILLS = ['Sales', 'Leadership', 'Marketing', 'Negotiation', 'Public Speaking', 'Project Management', 'Strategy', 'Customer Success'] as const;
/** The three skills a simulated person lists, in the order the profile shows them. */
export function simSkills(slug: string): string[] {
  const rng = new Rng(`skills:${slug}`);
  const pool: string[] = [...SIM_SKILLS];
  const out: string[] = [];
  while (out.length < 3) out.push(pool.splice(Math.floor(rng.next() * pool.length), 1)[0] as string);
  return out;
}
import { lookalikePage, searchPage } from './search.js';

export interface SimulatedNetworkOptions {
  /** The simulation clock: stamps sends and so places acceptances and replies in sim time. */
  clock: Clock;
  /** Defaults to an in-memory store; pass a durable one so scheduled responses survive restarts. */
  inbox?: SimInboxStore;
  /**
   * Wall time for `retryAfterSeconds` on quota failures, because clients wait in real time and
   * API quotas follow the real UTC day. Defaults to `clock`.
   */
  wallClock?: Clock;
}

const DRAIN_BATCH = 500;

const ACCOUNT_STATUS_MARKERS: readonly (readonly [string, AccountStatus])[] = [
  [MARKERS.disconnected, 'disconnected'],
  [MARKERS.connecting, 'connecting'],
  [MARKERS.failed, 'failed'],
];

/**
 * The development network provider: a deterministic synthetic population (see
 * docs/simulated-network.md). Profiles, searches and lookalikes are pure functions of their
 * inputs; acceptances and replies are scheduled into the inbox store when invitations and
 * messages are sent, and come back through `drainInbound`.
 */
export class SimulatedNetwork implements NetworkProvider {
  private readonly clock: Clock;
  private readonly wallClock: Clock;
  readonly inbox: SimInboxStore;
  /** Keeps ids from two sends in the same millisecond apart. */
  private sends = 0;

  constructor(options: SimulatedNetworkOptions) {
    this.clock = options.clock;
    this.wallClock = options.wallClock ?? options.clock;
    this.inbox = options.inbox ?? new InMemorySimInboxStore();
  }

  lookupProfile(input: LookupProfileInput & { depth: 'full' }): Promise<FullProfile>;
  lookupProfile(input: LookupProfileInput): Promise<Profile | FullProfile>;
  async lookupProfile(input: LookupProfileInput): Promise<Profile | FullProfile> {
    this.requireConnected(input.account);
    const slug = slugFromNetworkUrl(input.networkUrl);
    if (slug === null) throw invalid('networkUrl', 'Give a personal profile URL like https://www.linkedin.com/in/<slug>.');
    this.failOnMarker(slug, 'lookup');
    const { profile } = simPerson(slug);
    return input.depth === 'full' ? profile : basicProfile(profile);
  }

  async searchPeople(input: SearchPeopleInput): Promise<SearchPage> {
    this.requireConnected(input.account);
    if ((input.query === undefined) === (input.url === undefined)) {
      throw invalid(['query', 'url'], 'Give exactly one of query or url.');
    }
    if (input.type === 'sales_nav' && !input.account.hasSalesNavigator) {
      throw networkError('sales_nav_required', 'This account has no Sales Navigator. Run a classic search or use an account with Sales Navigator.');
    }
    this.failOnMarker(input.query ?? input.url ?? '', 'search');
    return searchPage(input);
  }

  async sendConnectionRequest(input: SendConnectionRequestInput): Promise<{ invitationId: string }> {
    this.requireConnected(input.account);
    const slug = resolveRef(input);
    if (input.note !== null && [...input.note].length > CONNECTION_NOTE_MAX) {
      throw invalid('note', `A connection note holds at most ${CONNECTION_NOTE_MAX} characters.`);
    }
    this.failOnMarker(slug, 'connect');
    const sentAt = this.clock.now();
    const decision = acceptanceDecision(slug, sentAt);
    if (decision.at !== null) {
      this.inbox.schedule({ ...this.eventBase('accept', input.account.id, slug, decision.at), type: 'invitation_accepted' });
    }
    return { invitationId: `inv_${this.uniqueId(`inv:${input.account.id}:${slug}`)}` };
  }

  async sendMessage(input: SendMessageInput): Promise<{ chatId: string; messageId: string }> {
    this.requireConnected(input.account);
    const slug = resolveRef(input.recipient, 'recipient.');
    if (input.text.trim() === '') throw invalid('text', 'The message text is empty.');
    this.failOnMarker(slug, 'message');
    const chatId = input.chatId ?? this.chatIdFor(input.account.id, slug);
    this.scheduleReply(input.account.id, slug, chatId);
    return { chatId, messageId: `msg_${this.uniqueId(`msg:${chatId}:${input.text}`)}` };
  }

  /** A visit is a profile read that the person is told of; it changes nothing else here. */
  async visitProfile(input: VisitProfileInput): Promise<Profile> {
    this.requireConnected(input.account);
    const slug = resolveRef(input);
    this.failOnMarker(slug, 'visit');
    return basicProfile(simPerson(slug).profile);
  }

  /** About three people in four have a post of their own (see `postDecision`); liking it twice is liking it once. */
  async likeLatestPost(input: LikeLatestPostInput): Promise<LikeResult> {
    this.requireConnected(input.account);
    const slug = resolveRef(input);
    this.failOnMarker(slug, 'like');
    const { latestPostId } = postDecision(slug);
    return latestPostId === null ? { outcome: 'no_posts' } : { outcome: 'liked', postId: latestPostId };
  }

  /**
   * Endorses a skill the person lists: each person lists three skills of `SIM_SKILLS`, drawn from
   * their slug. `skill` names one (any case); null takes the first this account has not endorsed.
   * A skill the person does not list, or none left, is `no_skill`. An endorsement reads the
   * profile as a visit does, so a `sim-not-found` person fails as a visit would.
   */
  async endorseSkill(input: EndorseSkillInput): Promise<EndorseResult> {
    this.requireConnected(input.account);
    const slug = resolveRef(input);
    this.failOnMarker(slug, 'visit');
    const listed = simSkills(slug);
    const done = this.endorsed.get(`${input.account.id}:${slug}`) ?? new Set<string>();
    const wanted = input.skill?.trim().toLowerCase() ?? null;
    const skill = wanted === null ? listed.find((s) => !done.has(s)) : listed.find((s) => s.toLowerCase() === wanted);
    if (skill === undefined) return { outcome: 'no_skill' };
    done.add(skill);
    this.endorsed.set(`${input.account.id}:${slug}`, done);
    return { outcome: 'endorsed', skill };
  }
  /** The skills each account endorsed per person (an endorsement given twice is given once). */
  private readonly endorsed = new Map<string, Set<string>>();

  /**
   * An InMail reaches anyone but a `sim-no-inmail` person, connected or not. It shares the
   * chat and the one reply per (account, person) with messages, and counts as a message for
   * `sim-replies-after-<N>`.
   */
  async sendInMail(input: SendInMailInput): Promise<InMailResult> {
    this.requireConnected(input.account);
    if (!input.account.hasSalesNavigator) {
      throw networkError('sales_nav_required', 'InMail needs Sales Navigator on the account. Use an account with Sales Navigator.');
    }
    const slug = resolveRef(input.recipient, 'recipient.');
    if (input.subject.trim() === '' || [...input.subject].length > INMAIL_SUBJECT_MAX) {
      throw invalid('subject', `An InMail subject holds 1 to ${INMAIL_SUBJECT_MAX} characters.`);
    }
    if (input.text.trim() === '' || [...input.text].length > INMAIL_TEXT_MAX) throw invalid('text', `An InMail holds 1 to ${INMAIL_TEXT_MAX} characters.`);
    this.failOnMarker(slug, 'inmail');
    if (slug.includes(MARKERS.noInMail)) return { outcome: 'unreachable' };
    const chatId = this.chatIdFor(input.account.id, slug);
    this.scheduleReply(input.account.id, slug, chatId);
    return { outcome: 'sent', chatId, messageId: `msg_${this.uniqueId(`inmail:${chatId}:${input.text}`)}` };
  }

  /**
   * Withdraws an invitation: its acceptance, if one was scheduled and has not come yet, never
   * comes. Deterministic: the acceptance id depends only on the account and the person.
   */
  async withdrawInvitation(input: WithdrawInvitationInput): Promise<void> {
    this.requireConnected(input.account);
    const slug = resolveRef(input);
    this.inbox.ack([this.eventBase('accept', input.account.id, slug, 0).id]);
  }

  async lookalikeCandidates(input: LookalikeInput): Promise<LookalikePage> {
    if (input.account) this.requireConnected(input.account);
    const seedSlug = resolveProfileIdentifier(input.seed);
    if (seedSlug === null) throw invalid('seed', 'Give a personal profile URL or identifier as seed; websites and domains are not accepted.');
    this.failOnMarker(seedSlug, 'lookalike');
    const countries = input.countries.map((c, i) => {
      if (!/^[A-Za-z]{2}$/.test(c.trim())) throw invalid(`countries[${i}]`, 'Countries are ISO 3166-1 alpha-2 codes like DE or US.');
      return c.trim().toUpperCase();
    });
    const jobTitleKeywords = input.jobTitleKeywords.map((k) => k.trim().toLowerCase()).filter((k) => k !== '');
    return lookalikePage({
      seedSlug,
      jobTitleKeywords: [...new Set(jobTitleKeywords)].sort(),
      countries: [...new Set(countries)].sort(),
      cursor: input.cursor,
      limit: input.limit,
    });
  }

  /** Returns and acknowledges every due event, so each is delivered once (at most once). */
  async drainInbound(now: number): Promise<InboundEvent[]> {
    const drained: InboundEvent[] = [];
    for (;;) {
      const batch = this.inbox.due(now, DRAIN_BATCH);
      this.inbox.ack(batch.map((e) => e.id));
      drained.push(...batch);
      if (batch.length < DRAIN_BATCH) return drained;
    }
  }

  async accountHealth(account: AccountRef): Promise<AccountHealth> {
    failOnAccountOutage(account);
    return { status: accountStatus(account), hasSalesNavigator: account.hasSalesNavigator };
  }

  private requireConnected(account: AccountRef): void {
    failOnAccountOutage(account);
    const status = accountStatus(account);
    if (status !== 'connected') {
      throw networkError('account_disconnected', `The network account is ${status}. Reconnect it, then retry.`, { simulated: 'account' });
    }
  }

  private failOnMarker(text: string, op: SimOperation): void {
    const failure: ApiError | null = markerFailure(text, op, () => Math.ceil(msToNextUtcMidnight(this.wallClock.now()) / 1000));
    if (failure) throw failure;
  }

  private chatIdFor(accountId: string, slug: string): string {
    return `chat_${hashHex(`chat:${accountId}:${slug}`, 20)}`;
  }

  /** Counts the message (durably, for `sim-replies-after-<N>`) and schedules the person's reply, if any. */
  private scheduleReply(accountId: string, slug: string, chatId: string): void {
    const nth = this.inbox.tally(`messages:${accountId}:${slug}`);
    const reply = replyDecision(slug, this.clock.now(), nth);
    if (reply.at !== null && reply.text !== null) {
      this.inbox.schedule({ ...this.eventBase('reply', accountId, slug, reply.at), type: 'message_received', chatId, text: reply.text });
    }
  }

  /** Deterministic under a fake clock, yet distinct per send. */
  private uniqueId(key: string): string {
    this.sends += 1;
    return hashHex(`${key}:${this.clock.now()}:${this.sends}`, 20);
  }

  /** One acceptance and one reply per (account, person): the id carries no time. */
  private eventBase(kind: 'accept' | 'reply', accountId: string, slug: string, at: number) {
    return {
      id: `sim_${kind}_${hashHex(`${kind}:${accountId}:${slug}`, 20)}`,
      accountId,
      networkUrl: networkUrlFor(slug),
      providerId: providerIdFor(slug),
      at,
    };
  }
}

/** `sim-outage` in an account id: the provider cannot be reached for that account at all, health checks included. */
function failOnAccountOutage(account: AccountRef): void {
  if (account.id.toLowerCase().includes(MARKERS.outage)) {
    throw networkError('upstream_unavailable', undefined, { simulated: MARKERS.outage });
  }
}

function accountStatus(account: AccountRef): AccountStatus {
  const id = account.id.toLowerCase();
  return ACCOUNT_STATUS_MARKERS.find(([marker]) => id.includes(marker))?.[1] ?? 'connected';
}

const invalid = (fields: string | string[], message: string): ApiError =>
  networkError('validation_error', message, { fields: Array.isArray(fields) ? fields : [fields] });

/** The slug behind a profile reference; the URL wins when both are given. */
function resolveRef(ref: ProfileRef, fieldPrefix = ''): string {
  if (ref.networkUrl !== undefined) {
    const slug = slugFromNetworkUrl(ref.networkUrl);
    if (slug === null) throw invalid(`${fieldPrefix}networkUrl`, 'Give a personal profile URL like https://www.linkedin.com/in/<slug>.');
    return slug;
  }
  const slug = slugFromProviderId(ref.providerId ?? '');
  if (slug === null) throw networkError('not_found', 'No profile has this provider id. Use the providerId from a lookup or search.');
  return slug;
}
