import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Unipile's v1 API, built from the documented request and response shapes
 * (docs/unipile.md cites each). It checks what the adapter sends (the X-API-KEY header,
 * JSON vs multipart bodies, required query parameters, page-size caps) and records every
 * departure in `violations`, answering it as Unipile would (400 `errors/invalid_parameters`).
 * Tests script failures with `failNext`.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  json?: any;
  form?: [string, string][];
}

export interface FakePerson {
  provider_id: string;
  public_identifier: string | null;
  first_name: string;
  last_name: string;
  headline: string;
  location: string;
  /** For location filters: the LinkedIn location id this person is in. */
  locationId?: string;
  summary?: string;
  websites?: string[];
  profile_picture_url?: string;
  work_experience?: unknown[];
  /** The person's Sales Navigator member id (`ACw…`), what GET /users/{id}?linkedin_api=sales_navigator answers. */
  sales_nav_id?: string;
  /** Posts as GET /users/{id}/posts lists them, newest first (build them with `post()`). */
  posts?: any[];
  /** Refuses InMail (answers `errors/not_allowed_inmail`). */
  noInMail?: boolean;
  /** Skills as the profile lists them with `linkedin_sections=skills`: `{ name, endorsement_id, endorsed? }`. */
  skills?: any[];
  /** LinkedIn takes no endorsement of this person: the endorse route answers `endorsed: false`. */
  refusesEndorsements?: boolean;
}

export interface ScriptedReply {
  status?: number;
  /** The slug: answers `{ type: "errors/<slug>", status }`. */
  type?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** How many matching requests get this reply (default 1). */
  times?: number;
  /** Never answer (the adapter's timeout fires). */
  hang?: boolean;
  /** Drop the connection without an answer. */
  destroy?: boolean;
}

interface Script extends ScriptedReply {
  method?: string;
  path: RegExp;
  left: number;
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);
const cursorOf = (scope: string, offset: number): string => Buffer.from(JSON.stringify({ scope, offset })).toString('base64url');
function offsetOf(scope: string, cursor: string | null): number | 'bad' {
  if (cursor === null) return 0;
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { scope?: string; offset?: number };
    return c.scope === scope && typeof c.offset === 'number' ? c.offset : 'bad';
  } catch {
    return 'bad';
  }
}

export class UnipileContractServer {
  readonly apiKey = 'unipile-test-key-0123456789';
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  /** `Account` objects as GET /accounts lists them. */
  accounts: any[] = [];
  readonly people: FakePerson[] = [];
  /** Unipile account id to its relations, newest first. */
  readonly relations = new Map<string, any[]>();
  /** `${accountId}:${providerId}` of people already connected / already invited. */
  readonly connected = new Set<string>();
  readonly invited = new Set<string>();
  /** Pending invitation id to its `${accountId}:${providerId}` (DELETE /users/invite/sent/{id}). */
  readonly invitations = new Map<string, string>();
  readonly chats = new Map<string, { accountId: string; attendee: string; texts: string[]; subject?: string; api?: string }>();
  /** `${accountId}:${social_id}` of every reaction added. */
  readonly reactions: string[] = [];
  /** Endorsements given: `account:provider_id:skill_endorsement_id`. */
  readonly endorsements: string[] = [];
  /** Profile views that notified the person: `${accountId}:${identifier}`. */
  readonly visits: string[] = [];
  /** InMail credits left per Unipile account id; absent means plenty. */
  readonly inmailCredits = new Map<string, number>();
  /** Location keyword (lower-case) to LinkedIn location id. */
  readonly locations = new Map<string, string>();
  /** Page size of GET /accounts; small in tests to exercise the cursor. */
  accountsPageSize = 100;
  private readonly scripts: Script[] = [];
  private server!: Server;
  private ids = 0;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res).catch((err: unknown) => {
        this.violations.push(`server error: ${String(err)}`);
        if (!res.headersSent) this.reply(res, 500, { type: 'errors/unexpected_error', status: 500 });
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  failNext(match: { method?: string; path: RegExp }, reply: ScriptedReply): void {
    this.scripts.push({ ...match, ...reply, left: reply.times ?? 1 });
  }

  /** Bodies of the hosted auth links requested, in order. */
  readonly hostedLinks: Record<string, unknown>[] = [];

  addAccount(id: string, opts: { status?: string; salesNav?: boolean; name?: string; type?: string } = {}): any {
    const account = {
      object: 'Account',
      id,
      type: opts.type ?? 'LINKEDIN',
      name: opts.name ?? `Account ${id}`,
      created_at: '2026-01-01T00:00:00.000Z',
      connection_params: { im: { id: `ACoSELF${id}`, username: `self-${id}`, premiumFeatures: opts.salesNav ? ['premium', 'sales_navigator'] : [] } },
      sources: [{ id: `${id}_MESSAGING`, status: opts.status ?? 'OK' }],
    };
    this.accounts.push(account);
    return account;
  }

  addPerson(p: Partial<FakePerson> & { provider_id: string }): FakePerson {
    const person: FakePerson = { public_identifier: null, first_name: 'Pat', last_name: 'Doe', headline: '', location: '', ...p };
    this.people.push(person);
    return person;
  }

  /** A relation on the account's list, newest first (`created_at` in ms, as Unipile's examples). */
  addRelation(accountId: string, person: FakePerson, createdAt: number): void {
    const list = this.relations.get(accountId) ?? [];
    list.push({
      object: 'UserRelation',
      first_name: person.first_name,
      last_name: person.last_name,
      headline: person.headline,
      public_identifier: person.public_identifier,
      public_profile_url: person.public_identifier ? `https://www.linkedin.com/in/${person.public_identifier}` : null,
      created_at: createdAt,
      member_id: person.provider_id,
      member_urn: `urn:li:member:${person.provider_id}`,
      connection_urn: `urn:li:fsd_connection:${person.provider_id}`,
    });
    list.sort((a, b) => b.created_at - a.created_at);
    this.relations.set(accountId, list);
  }

  /** A LinkedIn post object as GET /users/{id}/posts lists it. */
  post(socialId: string, opts: { repost?: boolean; at?: string; reacted?: string | boolean; canReact?: boolean } = {}): any {
    return {
      object: 'Post',
      provider: 'LINKEDIN',
      id: socialId.replace(/\D/g, ''),
      social_id: socialId,
      share_url: `https://www.linkedin.com/feed/update/${socialId}`,
      text: 'A post',
      date: '1d',
      parsed_datetime: opts.at ?? '2026-03-01T10:00:00.000Z',
      reaction_counter: 3,
      comment_counter: 0,
      repost_counter: 0,
      impressions_counter: 10,
      // Unipile types it as boolean or string: a boolean when it has no detail of the reaction.
      user_reacted: opts.reacted ?? false,
      author: { public_identifier: 'x', id: 'ACoX', name: 'X', is_company: false },
      permissions: { can_react: opts.canReact ?? true, can_share: true, can_post_comments: true },
      is_repost: opts.repost ?? false,
    };
  }

  requestsTo(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  private violation(res: ServerResponse, message: string, slug = 'invalid_parameters', status = 400): void {
    this.violations.push(message);
    this.reply(res, status, { object: 'Error', type: `errors/${slug}`, status, title: message });
  }

  private reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  }

  private error(res: ServerResponse, status: number, slug: string, headers: Record<string, string> = {}): void {
    this.reply(res, status, { object: 'Error', type: `errors/${slug}`, status, title: slug, detail: slug }, headers);
  }

  private account(id: string | null): any {
    return this.accounts.find((a) => a.id === id);
  }

  private person(identifier: string): FakePerson | undefined {
    return this.people.find(
      (p) => p.provider_id === identifier || (p.public_identifier !== null && p.public_identifier.toLowerCase() === identifier.toLowerCase()),
    );
  }

  private profileJson(p: FakePerson): unknown {
    return {
      object: 'UserProfile',
      provider: 'LINKEDIN',
      provider_id: p.provider_id,
      public_identifier: p.public_identifier,
      first_name: p.first_name,
      last_name: p.last_name,
      headline: p.headline,
      summary: p.summary,
      location: p.location,
      websites: p.websites ?? [],
      profile_picture_url: p.profile_picture_url,
      work_experience: p.work_experience,
      ...(p.skills ? { skills: p.skills } : {}),
    };
  }

  /**
   * A search hit. Through Sales Navigator a member is named by their Sales Navigator id, and the
   * public identifier is not given: GET /users/{id} in the classic API converts it (Unipile's
   * users overview: one provider id per product).
   */
  private searchItem(p: FakePerson, salesNav: boolean): unknown {
    const navId = salesNav ? p.sales_nav_id : undefined;
    return {
      object: 'SearchResult',
      type: 'PEOPLE',
      id: navId ?? p.provider_id,
      public_identifier: navId ? null : p.public_identifier,
      public_profile_url: !navId && p.public_identifier ? `https://www.linkedin.com/in/${p.public_identifier}` : null,
      profile_url: navId ? `https://www.linkedin.com/sales/lead/${navId},NAME_SEARCH,x` : `https://www.linkedin.com/in/${p.provider_id}`,
      profile_picture_url: p.profile_picture_url ?? null,
      name: `${p.first_name} ${p.last_name}`,
      first_name: p.first_name,
      last_name: p.last_name,
      network_distance: 'DISTANCE_2',
      location: p.location,
      headline: p.headline,
    };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const record: RecordedRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers };
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim();
    if (raw.length > 0 && type === 'application/json') record.json = JSON.parse(raw.toString('utf8'));
    if (raw.length > 0 && type === 'multipart/form-data') {
      const form = await new Request('http://localhost/', {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body: raw,
      }).formData();
      record.form = [...form.entries()].map(([k, v]) => [k, String(v)]);
    }
    this.requests.push(record);

    if (req.headers['x-api-key'] !== this.apiKey)
      return this.violation(res, `${record.method} ${record.path}: missing or wrong X-API-KEY`, 'missing_credentials', 401);
    const script = this.scripts.find((s) => s.left > 0 && (!s.method || s.method === record.method) && s.path.test(record.path));
    if (script) {
      script.left -= 1;
      if (script.hang) return;
      if (script.destroy) return void req.socket.destroy();
      const status = script.status ?? 500;
      return this.reply(
        res,
        status,
        script.body ?? (script.type ? { object: 'Error', type: `errors/${script.type}`, status, title: script.type } : {}),
        script.headers,
      );
    }
    if (!record.path.startsWith('/api/v1/')) return this.violation(res, `${record.path}: not under /api/v1`);
    const path = record.path.slice('/api/v1'.length);
    const q = url.searchParams;
    const needAccount = (): any => {
      const id = q.get('account_id');
      if (!id) {
        this.violation(res, `${record.method} ${path}: account_id query parameter missing`, 'missing_parameters');
        return null;
      }
      const account = this.account(id);
      if (!account) this.error(res, 404, 'resource_not_found');
      return account ?? null;
    };

    if (record.method === 'GET' && path === '/accounts') {
      const offset = offsetOf('accounts', q.get('cursor'));
      if (offset === 'bad') return this.violation(res, 'GET /accounts: unknown cursor');
      const limit = Number(q.get('limit') ?? 100);
      if (!(limit >= 1 && limit <= 250)) return this.violation(res, 'GET /accounts: limit out of 1..250');
      const size = Math.min(limit, this.accountsPageSize);
      const items = this.accounts.slice(offset, offset + size);
      return this.reply(res, 200, { object: 'AccountList', items, cursor: offset + size < this.accounts.length ? cursorOf('accounts', offset + size) : null });
    }
    let m = /^\/accounts\/([^/]+)$/.exec(path);
    if (record.method === 'GET' && m) {
      const account = this.account(decodeURIComponent(m[1]!));
      return account ? this.reply(res, 200, account) : this.error(res, 404, 'resource_not_found');
    }
    if (record.method === 'POST' && path === '/hosted/accounts/link') {
      // Unipile's hosted auth link: type, providers, api_url and expiresOn are required;
      // expiresOn is ISO 8601 UTC with milliseconds; name and notify_url are optional.
      const b = record.json as Record<string, unknown> | undefined;
      if (!b) return this.violation(res, 'POST /hosted/accounts/link: JSON body required');
      if (b.type !== 'create' && b.type !== 'reconnect') return this.violation(res, 'POST /hosted/accounts/link: type must be create or reconnect');
      if (b.type === 'reconnect' && typeof b.reconnect_account !== 'string')
        return this.violation(res, 'POST /hosted/accounts/link: reconnect needs reconnect_account');
      const providers = b.providers;
      if (!(providers === '*' || (Array.isArray(providers) && providers.length > 0 && providers.every((p) => typeof p === 'string')))) {
        return this.violation(res, 'POST /hosted/accounts/link: providers must be "*" or a list');
      }
      if (typeof b.api_url !== 'string' || !/^https?:\/\//.test(b.api_url))
        return this.violation(res, 'POST /hosted/accounts/link: api_url must be the API origin');
      if (typeof b.expiresOn !== 'string' || !/^[1-2]\d{3}-[0-1]\d-[0-3]\dT\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(b.expiresOn)) {
        return this.violation(res, 'POST /hosted/accounts/link: expiresOn must be ISO 8601 UTC with milliseconds');
      }
      if (b.name !== undefined && (typeof b.name !== 'string' || b.name.length < 1))
        return this.violation(res, 'POST /hosted/accounts/link: name must be a non-empty string');
      if (b.notify_url !== undefined && typeof b.notify_url !== 'string') return this.violation(res, 'POST /hosted/accounts/link: notify_url must be a URL');
      this.hostedLinks.push(b);
      return this.reply(res, 201, { object: 'HostedAuthURL', url: `https://account.unipile.com/hosted/${this.hostedLinks.length}` });
    }
    if (record.method === 'GET' && path === '/users/relations') {
      const account = needAccount();
      if (!account) return;
      const limit = Number(q.get('limit') ?? 100);
      if (!(limit >= 1 && limit <= 1000)) return this.violation(res, 'GET /users/relations: limit out of 1..1000');
      const list = this.relations.get(account.id) ?? [];
      const offset = offsetOf(`relations:${account.id}`, q.get('cursor'));
      if (offset === 'bad') return this.violation(res, 'GET /users/relations: unknown cursor');
      return this.reply(res, 200, {
        object: 'UserRelationsList',
        items: list.slice(offset, offset + limit),
        cursor: offset + limit < list.length ? cursorOf(`relations:${account.id}`, offset + limit) : null,
      });
    }
    if (record.method === 'GET' && path === '/linkedin/search/parameters') {
      if (!needAccount()) return;
      if (!q.get('type')) return this.violation(res, 'GET /linkedin/search/parameters: type missing', 'missing_parameters');
      const id = this.locations.get((q.get('keywords') ?? '').toLowerCase());
      return this.reply(res, 200, {
        object: 'LinkedinSearchParametersList',
        items: id ? [{ object: 'LinkedinSearchParameter', id, title: q.get('keywords') }] : [],
        paging: { page_count: id ? 1 : 0 },
      });
    }
    m = /^\/users\/([^/]+)$/.exec(path);
    if (record.method === 'GET' && m) {
      if (!needAccount()) return;
      const sections = q.get('linkedin_sections');
      const known = [
        '*',
        'experience',
        'education',
        'languages',
        'skills',
        'certifications',
        'about',
        'volunteering_experience',
        'projects',
        'recommendations_received',
        'recommendations_given',
      ];
      if (sections !== null && !known.includes(sections)) return this.violation(res, `GET /users: linkedin_sections "${sections}"`);
      const api = q.get('linkedin_api');
      if (api !== null && api !== 'sales_navigator' && api !== 'recruiter') return this.violation(res, `GET /users: linkedin_api "${api}"`);
      const notify = q.get('notify');
      if (notify !== null && notify !== 'true' && notify !== 'false') return this.violation(res, `GET /users: notify "${notify}" is not a boolean`);
      const account = this.account(q.get('account_id'));
      if (api === 'sales_navigator' && !account.connection_params.im.premiumFeatures.includes('sales_navigator'))
        return this.error(res, 403, 'feature_not_subscribed');
      const identifier = decodeURIComponent(m[1]!);
      const person = this.person(identifier) ?? this.people.find((p) => p.sales_nav_id === identifier);
      if (!person) return this.error(res, 404, 'resource_not_found');
      if (notify === 'true') this.visits.push(`${account.id}:${identifier}`);
      const json = this.profileJson(person) as Record<string, unknown>;
      if (api === 'sales_navigator') {
        const snId = person.sales_nav_id ?? (person.provider_id.startsWith('ACw') ? person.provider_id : undefined);
        if (!snId) return this.error(res, 404, 'resource_not_found');
        json.provider_id = snId;
      }
      return this.reply(res, 200, json);
    }
    // List all posts: GET /api/v1/users/{identifier}/posts?account_id&limit (1..100)&cursor; LinkedIn wants the provider id.
    m = /^\/users\/([^/]+)\/posts$/.exec(path);
    if (record.method === 'GET' && m) {
      if (!needAccount()) return;
      const limit = Number(q.get('limit') ?? 100);
      if (!(limit >= 1 && limit <= 100)) return this.violation(res, 'GET /users/{id}/posts: limit out of 1..100');
      const identifier = decodeURIComponent(m[1]!);
      if (!/^(ACo|ADo)/.test(identifier)) return this.error(res, 422, 'invalid_recipient');
      const person = this.people.find((p) => p.provider_id === identifier);
      if (!person) return this.error(res, 404, 'resource_not_found');
      const posts = person.posts ?? [];
      return this.reply(res, 200, {
        object: 'PostList',
        items: posts.slice(0, limit),
        cursor: posts.length > limit ? cursorOf(`posts:${identifier}`, limit) : null,
      });
    }
    // Add a reaction: POST /api/v1/posts/reaction, JSON { account_id, post_id, reaction_type?, comment_id?, as_organization? }, 201 ReactionAdded.
    if (record.method === 'POST' && path === '/posts/reaction') {
      if (type !== 'application/json') return this.violation(res, 'POST /posts/reaction: body must be JSON');
      const b = record.json ?? {};
      if (typeof b.account_id !== 'string' || typeof b.post_id !== 'string' || b.post_id === '')
        return this.violation(res, 'POST /posts/reaction: account_id and post_id required', 'missing_parameters');
      const extra = Object.keys(b).filter((k) => !['account_id', 'post_id', 'reaction_type', 'comment_id', 'as_organization'].includes(k));
      if (extra.length) return this.violation(res, `POST /posts/reaction: unknown fields ${extra.join(',')}`);
      if (b.reaction_type !== undefined && !['like', 'celebrate', 'support', 'love', 'insightful', 'funny'].includes(b.reaction_type))
        return this.violation(res, `POST /posts/reaction: reaction_type "${b.reaction_type}"`);
      if (!this.account(b.account_id)) return this.error(res, 404, 'resource_not_found');
      if (!this.people.some((p) => (p.posts ?? []).some((post) => post.social_id === b.post_id))) return this.error(res, 422, 'invalid_post');
      this.reactions.push(`${b.account_id}:${b.post_id}`);
      return this.reply(res, 201, { object: 'ReactionAdded' });
    }
    // Endorse a user profile specific skill: POST /api/v1/linkedin/profile/endorse, JSON { account_id, profile_id, skill_endorsement_id (number) }.
    if (record.method === 'POST' && path === '/linkedin/profile/endorse') {
      if (type !== 'application/json') return this.violation(res, 'POST /linkedin/profile/endorse: body must be JSON');
      const b = record.json ?? {};
      if (typeof b.account_id !== 'string' || typeof b.profile_id !== 'string' || typeof b.skill_endorsement_id !== 'number')
        return this.violation(res, 'POST /linkedin/profile/endorse: account_id, profile_id and a numeric skill_endorsement_id required', 'missing_parameters');
      const extra = Object.keys(b).filter((k) => !['account_id', 'profile_id', 'skill_endorsement_id'].includes(k));
      if (extra.length) return this.violation(res, `POST /linkedin/profile/endorse: unknown fields ${extra.join(',')}`);
      if (!this.account(b.account_id)) return this.error(res, 404, 'resource_not_found');
      const person = this.people.find((p) => p.provider_id === b.profile_id);
      if (!person) return this.error(res, 422, 'invalid_recipient');
      if (!(person.skills ?? []).some((k) => Number(k.endorsement_id) === b.skill_endorsement_id)) return this.error(res, 422, 'invalid_parameters');
      // As documented: 200 with `{ object: "LinkedinProfileEndorse", endorsed }`.
      if (person.refusesEndorsements) return this.reply(res, 200, { object: 'LinkedinProfileEndorse', endorsed: false });
      this.endorsements.push(`${b.account_id}:${b.profile_id}:${b.skill_endorsement_id}`);
      return this.reply(res, 200, { object: 'LinkedinProfileEndorse', endorsed: true });
    }
    if (record.method === 'POST' && path === '/users/invite') {
      if (type !== 'application/json') return this.violation(res, 'POST /users/invite: body must be JSON');
      const b = record.json ?? {};
      if (typeof b.account_id !== 'string' || typeof b.provider_id !== 'string')
        return this.violation(res, 'POST /users/invite: account_id and provider_id required', 'missing_parameters');
      const extra = Object.keys(b).filter((k) => !['account_id', 'provider_id', 'message', 'user_email'].includes(k));
      if (extra.length) return this.violation(res, `POST /users/invite: unknown fields ${extra.join(',')}`);
      if (b.message !== undefined && (typeof b.message !== 'string' || [...b.message].length > 300)) return this.error(res, 400, 'too_many_characters');
      if (!this.account(b.account_id)) return this.error(res, 404, 'resource_not_found');
      if (!this.people.some((p) => p.provider_id === b.provider_id)) return this.error(res, 422, 'invalid_recipient');
      const key = `${b.account_id}:${b.provider_id}`;
      if (this.connected.has(key)) return this.error(res, 422, 'already_connected');
      if (this.invited.has(key)) return this.error(res, 422, 'already_invited_recently');
      this.invited.add(key);
      const invitationId = `7${String(++this.ids).padStart(18, '0')}`;
      this.invitations.set(invitationId, key);
      return this.reply(res, 201, { object: 'UserInvitationSent', invitation_id: invitationId });
    }
    // Cancel a sent invitation: DELETE /api/v1/users/invite/sent/{invitation_id}?account_id=…, 200 InvitationCanceled.
    m = /^\/users\/invite\/sent\/([^/]+)$/.exec(path);
    if (record.method === 'DELETE' && m) {
      const account = needAccount();
      if (!account) return;
      const id = decodeURIComponent(m[1]!);
      const key = this.invitations.get(id);
      if (key === undefined || !key.startsWith(`${q.get('account_id')}:`)) return this.error(res, 404, 'resource_not_found');
      this.invitations.delete(id);
      this.invited.delete(key);
      return this.reply(res, 200, { object: 'InvitationCanceled' });
    }
    if (record.method === 'POST' && path === '/chats') {
      if (type !== 'multipart/form-data') return this.violation(res, 'POST /chats: body must be multipart/form-data');
      const form = record.form ?? [];
      const get = (k: string) => form.filter(([n]) => n === k).map(([, v]) => v);
      const [accountId] = get('account_id');
      const attendees = get('attendees_ids');
      if (!accountId || attendees.length === 0) return this.violation(res, 'POST /chats: account_id and attendees_ids required', 'missing_parameters');
      if (get('text').length !== 1) return this.violation(res, 'POST /chats: one text field expected');
      // LinkedIn options travel as bracketed fields (linkedin[api], linkedin[inmail]); a JSON blob in `linkedin` is refused.
      const known = ['account_id', 'attendees_ids', 'text', 'subject', 'title', 'linkedin[api]', 'linkedin[inmail]'];
      const unknown = form.map(([n]) => n).filter((n) => !known.includes(n));
      if (unknown.length) return this.violation(res, `POST /chats: unknown fields ${unknown.join(',')}`);
      const [api] = get('linkedin[api]');
      if (api !== undefined && !['classic', 'recruiter', 'sales_navigator'].includes(api)) return this.violation(res, `POST /chats: linkedin[api] "${api}"`);
      const account = this.account(accountId);
      if (!account) return this.error(res, 404, 'resource_not_found');
      const [subject] = get('subject');
      if (api === 'sales_navigator') {
        if (!account.connection_params.im.premiumFeatures.includes('sales_navigator')) return this.error(res, 403, 'feature_not_subscribed');
        // Through Sales Navigator a member is addressed by their Sales Navigator id.
        const people = attendees.map((a) => this.people.find((p) => p.sales_nav_id === a));
        if (people.some((p) => p === undefined)) return this.error(res, 422, 'invalid_recipient');
        if (people.some((p) => p!.noInMail)) return this.error(res, 422, 'not_allowed_inmail');
        const credits = this.inmailCredits.get(accountId);
        if (credits !== undefined && credits <= 0) return this.error(res, 422, 'insufficient_credits');
        if (credits !== undefined) this.inmailCredits.set(accountId, credits - 1);
      } else if (!attendees.every((a) => this.people.some((p) => p.provider_id === a))) return this.error(res, 422, 'invalid_recipient');
      const chatId = `chat${sha(`${accountId}:${api === 'sales_navigator' ? 'sn:' : ''}${attendees.join(',')}`)}`;
      const chat = this.chats.get(chatId) ?? { accountId, attendee: attendees[0]!, texts: [], ...(subject ? { subject } : {}), ...(api ? { api } : {}) };
      chat.texts.push(get('text')[0]!);
      this.chats.set(chatId, chat);
      return this.reply(res, 201, { object: 'ChatStarted', chat_id: chatId, message_id: `msg${++this.ids}` });
    }
    m = /^\/chats\/([^/]+)\/messages$/.exec(path);
    if (record.method === 'POST' && m) {
      if (type !== 'multipart/form-data') return this.violation(res, 'POST /chats/{id}/messages: body must be multipart/form-data');
      const form = record.form ?? [];
      const texts = form.filter(([n]) => n === 'text').map(([, v]) => v);
      if (texts.length !== 1) return this.violation(res, 'POST /chats/{id}/messages: one text field expected', 'missing_parameters');
      const chat = this.chats.get(decodeURIComponent(m[1]!));
      if (!chat) return this.error(res, 404, 'resource_not_found');
      const accountId = form.find(([n]) => n === 'account_id')?.[1];
      if (accountId !== undefined && accountId !== chat.accountId) return this.error(res, 403, 'account_mismatch');
      chat.texts.push(texts[0]!);
      return this.reply(res, 201, { object: 'MessageSent', message_id: `msg${++this.ids}` });
    }
    if (record.method === 'POST' && path === '/linkedin/search') {
      if (type !== 'application/json') return this.violation(res, 'POST /linkedin/search: body must be JSON');
      const account = needAccount();
      if (!account) return;
      const b = record.json ?? {};
      const salesNav = b.api === 'sales_navigator' || (typeof b.url === 'string' && b.url.includes('/sales/'));
      if (b.url === undefined && (b.category !== 'people' || (b.api !== 'classic' && b.api !== 'sales_navigator'))) {
        return this.violation(res, 'POST /linkedin/search: api and category people required');
      }
      if (b.location !== undefined && !(Array.isArray(b.location) && b.location.every((l: unknown) => typeof l === 'string' && /^\d+$/.test(l)))) {
        return this.violation(res, 'POST /linkedin/search: location must be an array of numeric id strings');
      }
      const limit = Number(q.get('limit') ?? 10);
      if (!(limit >= 0 && limit <= (salesNav ? 100 : 50)))
        return this.violation(res, `POST /linkedin/search: limit ${limit} over the ${salesNav ? 100 : 50} cap`);
      if (salesNav && !account.connection_params.im.premiumFeatures.includes('sales_navigator')) return this.error(res, 403, 'feature_not_subscribed');
      const scope = sha(JSON.stringify(b));
      const offset = offsetOf(scope, q.get('cursor'));
      if (offset === 'bad') return this.violation(res, 'POST /linkedin/search: cursor from another search');
      const words = String(b.keywords ?? (typeof b.url === 'string' ? (new URL(b.url).searchParams.get('keywords') ?? '') : ''))
        .toLowerCase()
        .split(/\s+/)
        .filter(Boolean);
      const titles = String(b.advanced_keywords?.title ?? '')
        .split(/\s+OR\s+/)
        .map((t) => t.replace(/"/g, '').trim().toLowerCase())
        .filter(Boolean);
      const hits = this.people.filter((p) => {
        const hay = `${p.first_name} ${p.last_name} ${p.headline} ${p.location}`.toLowerCase();
        if (!words.every((w) => hay.includes(w))) return false;
        if (titles.length && !titles.some((t) => p.headline.toLowerCase().includes(t))) return false;
        return !(b.location && !b.location.includes(p.locationId));
      });
      const items = hits.slice(offset, offset + limit);
      return this.reply(res, 200, {
        object: 'LinkedinSearch',
        items: items.map((p) => this.searchItem(p, salesNav)),
        config: { params: b },
        paging: { start: offset, page_count: items.length, total_count: hits.length },
        cursor: offset + limit < hits.length ? cursorOf(scope, offset + limit) : null,
      });
    }
    return this.violation(res, `no such route ${record.method} ${record.path}`, 'resource_not_found', 404);
  }
}

export const startContractServer = (): Promise<UnipileContractServer> => new UnipileContractServer().start();
