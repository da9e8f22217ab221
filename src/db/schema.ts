/**
 * The one SQLite schema. Timestamps are epoch milliseconds (integers) so that keyset cursors
 * compare numbers; the API renders them as ISO 8601. Text ids (`lead_…`, `cmp_…`) are the public
 * identities; integer `seq` columns are the stable tie-breakers for keyset pagination.
 */
import { sql } from 'drizzle-orm';
import { check, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

const bool = (name: string) => integer(name, { mode: 'boolean' });

/** The single workspace this server hosts (row id 1). */
export const workspace = sqliteTable('workspace', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  plan: text('plan').notNull(),
  planId: text('plan_id').notNull(),
  planActive: bool('plan_active').notNull().default(true),
  whiteLabelIsolated: bool('white_label_isolated').notNull().default(false),
  blocked: bool('blocked').notNull().default(false),
  /** Key that signs list cursors, so a tampered cursor is detected rather than trusted. */
  cursorSecret: text('cursor_secret').notNull(),
  webhookSecret: text('webhook_secret'),
  /** Lifetime counters for insights; kept beside the per-campaign stats. */
  repliesReceived: integer('replies_received').notNull().default(0),
  connectionRequestsSent: integer('connection_requests_sent').notNull().default(0),
  connectionRequestsAccepted: integer('connection_requests_accepted').notNull().default(0),
  messagesSent: integer('messages_sent').notNull().default(0),
  createdAt: integer('created_at').notNull(),
});

/** The checks make a negative balance impossible even for a writer that forgets to test first. */
export const creditBalance = sqliteTable(
  'credit_balance',
  {
    id: integer('id').primaryKey(),
    credits: integer('credits').notNull().default(0),
    topUpCredits: integer('top_up_credits').notNull().default(0),
    lookalikeCredits: integer('lookalike_credits').notNull().default(0),
    lookalikeTopUpCredits: integer('lookalike_top_up_credits').notNull().default(0),
  },
  (t) => [
    check('credit_balance_credits_nonnegative', sql`${t.credits} >= 0`),
    check('credit_balance_top_up_nonnegative', sql`${t.topUpCredits} >= 0`),
    check('credit_balance_lookalike_nonnegative', sql`${t.lookalikeCredits} >= 0`),
    check('credit_balance_lookalike_top_up_nonnegative', sql`${t.lookalikeTopUpCredits} >= 0`),
  ],
);

/** Every movement of a balance. balance(now) = balance(seed) + sum(delta). */
export const creditLedger = sqliteTable(
  'credit_ledger',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    /** credits | top_up_credits | lookalike_credits | lookalike_top_up_credits */
    bucket: text('bucket').notNull(),
    delta: integer('delta').notNull(),
    /** lead_created | lookalike_reserve | lookalike_refund | seed | adjustment | grant */
    reason: text('reason').notNull(),
    ref: text('ref'),
  },
  (t) => [index('credit_ledger_ref').on(t.ref)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** test | live */
    env: text('env').notNull(),
    /** The first characters of the key, safe to show (e.g. `sk_test_AbC1`). */
    prefix: text('prefix').notNull(),
    /** Hex SHA-256 of the full key; the key itself is never stored. */
    digest: text('digest').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
    revokedAt: integer('revoked_at'),
    /** The key's scope as JSON (core/auth/scope.ts): toolsets, readOnly, campaignIds, expiresAt. Null: everything. */
    scope: text('scope'),
  },
  (t) => [uniqueIndex('api_keys_digest').on(t.digest)],
);

export const accounts = sqliteTable('accounts', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  id: text('id').notNull().unique(),
  name: text('name').notNull(),
  /** connected | connecting | failed | disconnected */
  status: text('status').notNull(),
  active: bool('active').notNull().default(true),
  hasSalesNavigator: bool('has_sales_navigator').notNull().default(false),
  connectionRequestLimit: integer('connection_request_limit').notNull().default(25),
  messageLimit: integer('message_limit').notNull().default(50),
  /** The provider's own id for this account (e.g. a Unipile account id); never returned. */
  providerAccountId: text('provider_account_id'),
  createdAt: integer('created_at').notNull(),
  /** Rolling 7-day cap on connection requests; null uses the config's default (100). */
  weeklyConnectionRequestLimit: integer('weekly_connection_request_limit'),
  /** Sim-clock ms when the account's warm-up began; null means no warm-up (full limits at once). */
  warmUpStartedAt: integer('warm_up_started_at'),
  /** IANA time zone of the account's working hours; null uses the config's default. */
  timeZone: text('time_zone'),
  /** JSON `{ start, end, days }` or `"always"`; null uses the config's default working hours. */
  workingHours: text('working_hours'),
  /** Profile visits per UTC day (a sequence's `visit` steps). */
  profileVisitLimit: integer('profile_visit_limit').notNull().default(40),
  /** Post reactions per UTC day (a sequence's `like_post` steps). */
  postReactionLimit: integer('post_reaction_limit').notNull().default(30),
});

/** Per-account counters for one UTC day; a missing row means all zeros. */
export const accountDaily = sqliteTable(
  'account_daily',
  {
    accountId: text('account_id').notNull(),
    day: text('day').notNull(),
    connectionRequestsSent: integer('connection_requests_sent').notNull().default(0),
    connectionRequestsAccepted: integer('connection_requests_accepted').notNull().default(0),
    messagesSent: integer('messages_sent').notNull().default(0),
    profileLookups: integer('profile_lookups').notNull().default(0),
    searchResults: integer('search_results').notNull().default(0),
    profileVisits: integer('profile_visits').notNull().default(0),
    postReactions: integer('post_reactions').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day] })],
);

/** Agents ("templates"): who sends, the connection note and the message sequence. */
export const agents = sqliteTable('agents', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  accountId: text('account_id'),
  connectionNote: text('connection_note'),
  /** JSON array of { text, delayHours }. For an agent written with steps: the main path, derived from them. */
  messages: text('messages').notNull().default('[]'),
  createdAt: integer('created_at').notNull(),
  /**
   * JSON array of steps with their ids (src/core/agents/steps.ts), for an agent written with
   * steps; null for one written with connectionNote and messages, which reads as steps derived
   * from those.
   */
  steps: text('steps'),
});

export const campaigns = sqliteTable(
  'campaigns',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    assignedTemplateId: text('assigned_template_id'),
    /**
     * The importing mark: leads are still being found or added (a Lookalike job, a CSV import).
     * Written only by the campaign state machine, which reads it as a lease (isImporting).
     */
    importing: bool('importing').notNull().default(false),
    /** Who set the mark: an import's holder id, or `lookalike:<job id>`. */
    importingHolder: text('importing_holder'),
    /** The host and process of an import holding the mark, so a holder that died is seen at once. */
    importingHost: text('importing_host'),
    importingPid: integer('importing_pid'),
    /** Wall ms when the mark lapses unless renewed; null holds it until its holder ends it (a Lookalike job). */
    importingUntil: integer('importing_until'),
    totalLeads: integer('total_leads').notNull().default(0),
    connectionRequestsSent: integer('connection_requests_sent').notNull().default(0),
    connectionRequestsAccepted: integer('connection_requests_accepted').notNull().default(0),
    messagesSent: integer('messages_sent').notNull().default(0),
    repliesReceived: integer('replies_received').notNull().default(0),
    /** off | required: whether each note and message waits as a draft for a person's approval. */
    approval: text('approval').notNull().default('off'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** JSON array of account ids that send for the campaign; empty means the agent's account. */
    senderAccountIds: text('sender_account_ids').notNull().default('[]'),
    /** JSON array of mailbox ids that send the campaign's email steps (migration 0024). */
    mailboxIds: text('mailbox_ids').notNull().default('[]'),
  },
  (t) => [index('campaigns_status').on(t.status, t.seq), index('campaigns_updated').on(t.updatedAt, t.seq)],
);

export const leads = sqliteTable(
  'leads',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** The account that contacts this lead; null means the campaign agent's account. */
    accountId: text('account_id'),
    /** Normalised `https://www.linkedin.com/in/<slug>`; the dedupe and exclusion key. */
    networkUrl: text('network_url'),
    fullName: text('full_name'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    jobTitle: text('job_title'),
    companyName: text('company_name'),
    companyNetwork: text('company_network'),
    website: text('website'),
    email: text('email'),
    location: text('location'),
    headline: text('headline'),
    personalization: text('personalization'),
    /** JSON array, at most 10 entries. */
    workExperience: text('work_experience').notNull().default('[]'),
    tag: text('tag'),
    taggedAt: integer('tagged_at'),
    /**
     * Set when a single PATCH gave an auto-exclude tag to a lead waiting on our reply: the engine
     * sends a polite close and then excludes the lead. Null when no close is pending.
     */
    politeClosePendingAt: integer('polite_close_pending_at'),
    stage: text('stage').notNull().default('new'),
    excluded: bool('excluded').notNull().default(false),
    replied: bool('replied').notNull().default(false),
    needsReply: bool('needs_reply').notNull().default(false),
    repliedAt: integer('replied_at'),
    lastInboundMessageAt: integer('last_inbound_message_at'),
    connectionRequestAccepted: bool('connection_request_accepted').notNull().default(false),
    messageSent: bool('message_sent').notNull().default(false),
    /** manual | search | lookalike */
    source: text('source').notNull().default('manual'),
    /** Provider member id; internal, never returned. */
    providerId: text('provider_id'),
    /** Chat id at the provider; internal, never returned. */
    chatId: text('chat_id'),
    /**
     * Engine due-work queue (sim-clock ms): when the engine next looks at this lead; null when
     * it has nothing left to do. New rows default to 0, so a lead inserted by any path (add,
     * batch, lookalike, seed) is picked up as soon as its campaign runs.
     */
    nextActionAt: integer('next_action_at').default(0),
    /** How many messages of the agent's sequence were sent. */
    sequenceStep: integer('sequence_step').notNull().default(0),
    invitedAt: integer('invited_at'),
    connectedAt: integer('connected_at'),
    lastSequenceSentAt: integer('last_sequence_sent_at'),
    /** Consecutive transient provider failures of the next send; reset on success. */
    sendAttempts: integer('send_attempts').notNull().default(0),
    /** The inbound text the agent has yet to decide on; internal, never returned. */
    pendingReplyText: text('pending_reply_text'),
    /** A decided agent message waiting for a send slot: reply | cta. */
    agentSendKind: text('agent_send_kind'),
    agentSendText: text('agent_send_text'),
    agentTurns: integer('agent_turns').notNull().default(0),
    /** Sim-clock ms when the engine withdrew the lead's stale invitation; the lead has no work left after it. */
    invitationWithdrawnAt: integer('invitation_withdrawn_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('leads_due').on(t.campaignId, t.nextActionAt),
    index('leads_polite_close').on(t.politeClosePendingAt),
    uniqueIndex('leads_campaign_url').on(t.campaignId, t.networkUrl),
    index('leads_url').on(t.networkUrl),
    // Keyset indexes: one per (filter, sort) pair of the list_leads matrix.
    index('leads_created').on(t.campaignId, t.createdAt, t.seq),
    index('leads_tag_created').on(t.campaignId, t.tag, t.createdAt, t.seq),
    index('leads_tag_tagged').on(t.campaignId, t.tag, t.taggedAt, t.seq),
    index('leads_replied_created').on(t.campaignId, t.replied, t.createdAt, t.seq),
    index('leads_replied_replied').on(t.campaignId, t.replied, t.repliedAt, t.seq),
    index('leads_replied_inbound').on(t.campaignId, t.replied, t.lastInboundMessageAt, t.seq),
    index('leads_inbound').on(t.campaignId, t.lastInboundMessageAt, t.seq),
    index('leads_needs_reply_created').on(t.campaignId, t.needsReply, t.createdAt, t.seq),
    index('leads_excluded_created').on(t.campaignId, t.excluded, t.createdAt, t.seq),
    // Lead search (leads_search_name, leads_search_last_name, leads_search_company) indexes
    // expressions, so migration 0011 creates them and src/core/leads/search.ts queries them.
  ],
);

/** Workspace-wide exclusion list of normalised profile URLs. */
export const exclusions = sqliteTable('exclusions', {
  networkUrl: text('network_url').primaryKey(),
  createdAt: integer('created_at').notNull(),
});

export const activity = sqliteTable(
  'activity',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    type: text('type').notNull(),
    at: integer('at').notNull(),
    leadId: text('lead_id').notNull(),
    /** Snapshots taken when the event happened, so events outlive lead edits and deletes. */
    leadName: text('lead_name'),
    companyName: text('company_name'),
    campaignId: text('campaign_id').notNull(),
    messagePreview: text('message_preview'),
    handOffReason: text('hand_off_reason'),
    /** Internal; never returned. */
    accountId: text('account_id'),
    /** Manual operator sends are recorded but never listed. */
    manual: bool('manual').notNull().default(false),
  },
  (t) => [index('activity_at').on(t.manual, t.at, t.seq), index('activity_type_at').on(t.manual, t.type, t.at, t.seq)],
);

/** Idempotency records, scoped per API key. */
export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    apiKeyId: text('api_key_id').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    /** in_flight | done */
    state: text('state').notNull(),
    status: integer('status'),
    body: text('body'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.apiKeyId, t.key] }), index('idempotency_expires').on(t.expiresAt)],
);

/**
 * Tool calls an MCP client follows as tasks (the Tasks extension): one row per task, so a
 * handle outlives a restart and any connection of the same key can poll it.
 */
export const mcpTasks = sqliteTable(
  'mcp_tasks',
  {
    id: text('id').primaryKey(),
    /** The API key that started it; no other key sees it. */
    apiKeyId: text('api_key_id').notNull(),
    tool: text('tool').notNull(),
    /** working | completed | failed | cancelled */
    status: text('status').notNull(),
    statusMessage: text('status_message'),
    /** The tool result (JSON) once completed. */
    result: text('result'),
    /** The protocol error (JSON: code, message) once failed. */
    error: text('error'),
    /** The handler's body while work it started goes on (a Lookalike build), for the tool to follow. */
    following: text('following'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    /** Refreshed while a call runs in this server's process; a stale one was cut off by a restart. */
    heartbeatAt: integer('heartbeat_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('mcp_tasks_expires').on(t.expiresAt)],
);

/** Durable webhook outbox: one row per event, written in the same transaction as its cause. */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    type: text('type').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The full JSON payload as it is delivered. */
    payload: text('payload').notNull(),
    /** Set once deliveries have been planned for every subscribed endpoint. */
    fannedOutAt: integer('fanned_out_at'),
  },
  (t) => [index('webhook_events_fanout').on(t.fannedOutAt, t.seq)],
);

export const webhookEndpoints = sqliteTable('webhook_endpoints', {
  id: text('id').primaryKey(),
  url: text('url').notNull(),
  /** JSON array of event types. */
  events: text('events').notNull(),
  /** active | disabled */
  status: text('status').notNull().default('active'),
  disabledReason: text('disabled_reason'),
  createdAt: integer('created_at').notNull(),
});

/**
 * Engine send intents, written before the provider is called and settled after, so a restart
 * can tell a send in flight from one never made and never sends twice. Rows are kept as the
 * internal record of what was sent; never returned.
 */
export const engineIntents = sqliteTable(
  'engine_intents',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    accountId: text('account_id').notNull(),
    /** connection_request | message | agent_reply | cta | polite_close | withdrawal | visit | like | inmail | manual_message */
    kind: text('kind').notNull(),
    /** The sequence step for `message`: its place among the agent's message steps. */
    step: integer('step'),
    /** The agent's step (`stp_…`) a sequence send carries out; null for conversation sends. */
    stepId: text('step_id'),
    text: text('text'),
    /** pending | sent | failed | assumed_sent */
    state: text('state').notNull(),
    holder: text('holder').notNull(),
    createdAt: integer('created_at').notNull(),
    settledAt: integer('settled_at'),
    chatId: text('chat_id'),
    messageId: text('message_id'),
    errorCode: text('error_code'),
  },
  // The intents in flight, by lead (partial: it stays a page or two however long the history),
  // for recovery, the completion rule and the one-send-at-a-time check of beginSend. Per-account
  // history: the spacing after a restart and the safety audit read it in order. By time: which
  // accounts called in a given minute (the lock-step check before each call, core/outreach/lockstep.ts).
  (t) => [
    index('engine_intents_pending').on(t.leadId).where(sql`${t.state} = 'pending'`),
    index('engine_intents_account').on(t.accountId, t.createdAt),
    index('engine_intents_at').on(t.createdAt),
  ],
);

/** One row (id 1): the engine lease, so only one process drives a database, and the sim-clock high-water mark. */
export const engineState = sqliteTable('engine_state', {
  id: integer('id').primaryKey(),
  holder: text('holder'),
  /** Where the holder runs: a lease whose holder is provably gone (same host, no such process) is taken at once. */
  holderHost: text('holder_host'),
  holderPid: integer('holder_pid'),
  /** Wall-clock ms. */
  leaseExpiresAt: integer('lease_expires_at').notNull().default(0),
  /** The latest simulated time any engine reached, so the sim clock never runs backwards across restarts. */
  simNow: integer('sim_now').notNull().default(0),
});

/** The simulated network's scheduled acceptances and replies (SqliteSimInboxStore). Delivered rows stay, so an id is never scheduled twice. */
export const simInbox = sqliteTable(
  'sim_inbox',
  {
    id: text('id').primaryKey(),
    type: text('type').notNull(),
    at: integer('at').notNull(),
    accountId: text('account_id').notNull(),
    networkUrl: text('network_url').notNull(),
    providerId: text('provider_id').notNull(),
    chatId: text('chat_id'),
    text: text('text'),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [index('sim_inbox_due').on(t.deliveredAt, t.at, t.id)],
);

/** The simulator's durable counters, e.g. the messages an account sent a person (`sim-replies-after-<N>`). */
export const simTallies = sqliteTable('sim_tallies', {
  key: text('key').primaryKey(),
  count: integer('count').notNull().default(0),
});

/**
 * One event owed to one endpoint. A redelivery after a final state is a new row with the same
 * event, so each row's attempts follow one run of the retry schedule.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    eventId: text('event_id').notNull(),
    endpointId: text('endpoint_id').notNull(),
    /** pending | succeeded | failed */
    state: text('state').notNull().default('pending'),
    /** Attempts started by this delivery; the schedule step of the next one. */
    attempts: integer('attempts').notNull().default(0),
    /** Due time of the next attempt; null once the delivery is final. */
    nextAttemptAt: integer('next_attempt_at'),
    /**
     * Set while an attempt is in flight. A process killed mid-attempt leaves it behind, and the
     * delivery is claimed again once it passes; meanwhile no other worker may send it.
     */
    leasedUntil: integer('leased_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    index('webhook_deliveries_due').on(t.state, t.endpointId, t.nextAttemptAt),
    index('webhook_deliveries_event').on(t.eventId),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.seq),
  ],
);

/** The delivery log: one row per attempt, written when it starts and completed when it ends. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    deliveryId: text('delivery_id').notNull(),
    /** 1-based within its delivery. */
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    /** HTTP status; null when no answer came (timeout, refused, interrupted). */
    status: integer('status'),
    durationMs: integer('duration_ms'),
    error: text('error'),
    /** The first KiB of the receiver's answer. */
    responseExcerpt: text('response_excerpt'),
    /** Null while in flight, and on an attempt cut off by a crash. */
    finishedAt: integer('finished_at'),
  },
  (t) => [index('webhook_attempts_delivery').on(t.deliveryId, t.seq)],
);

/** Server-held secrets, created on first use (e.g. the key that signs OAuth consent forms). */
export const serverSecrets = sqliteTable('server_secrets', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * OAuth clients from dynamic registration (RFC 7591). Registering the same metadata again
 * returns the same client (unique `fingerprint`), so registration is cheap and idempotent.
 */
export const oauthClients = sqliteTable('oauth_clients', {
  id: text('id').primaryKey(),
  /** SHA-256 of the normalised registration metadata. */
  fingerprint: text('fingerprint').notNull().unique(),
  /** The registered metadata (redirect URIs, name, grant types, auth method) as JSON. */
  metadata: text('metadata').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * One consent: a client acting with one API key. Its code and tokens hang off it, so a
 * replayed code or a reused refresh token revokes everything the consent produced.
 */
export const oauthGrants = sqliteTable(
  'oauth_grants',
  {
    id: text('id').primaryKey(),
    clientId: text('client_id').notNull(),
    apiKeyId: text('api_key_id').notNull(),
    /** Space-separated scopes as requested; informational, the key decides what is reachable. */
    scopes: text('scopes').notNull().default(''),
    /** The RFC 8707 resource the client asked for, if any. */
    resource: text('resource'),
    /** The scope chosen on the consent page, as JSON (core/auth/scope.ts), within the key's own. Null: the key's. */
    keyScope: text('key_scope'),
    createdAt: integer('created_at').notNull(),
    revokedAt: integer('revoked_at'),
  },
  (t) => [index('oauth_grants_key').on(t.apiKeyId)],
);

/** Authorization codes, stored as SHA-256 digests; single use, short-lived. */
export const oauthCodes = sqliteTable(
  'oauth_codes',
  {
    digest: text('digest').primaryKey(),
    grantId: text('grant_id').notNull(),
    /** The consent form's one-time nonce: unique, so one form issues at most one code. */
    formNonce: text('form_nonce').notNull().unique(),
    redirectUri: text('redirect_uri').notNull(),
    /** The S256 PKCE challenge the client sent to /authorize. */
    codeChallenge: text('code_challenge').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('oauth_codes_expires').on(t.expiresAt)],
);

/** Access and refresh tokens, stored as SHA-256 digests. */
export const oauthTokens = sqliteTable(
  'oauth_tokens',
  {
    digest: text('digest').primaryKey(),
    grantId: text('grant_id').notNull(),
    /** access | refresh */
    kind: text('kind').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    /** Refresh tokens rotate: set when exchanged; a second exchange revokes the grant. */
    usedAt: integer('used_at'),
  },
  (t) => [index('oauth_tokens_grant').on(t.grantId), index('oauth_tokens_expires').on(t.expiresAt)],
);

/**
 * Unipile inbound events (webhooks and the relations poll) waiting for `drainInbound`. The id
 * is stable per event, so a webhook retry or a poll that sees an acceptance again is ignored.
 */
export const unipileInbound = sqliteTable(
  'unipile_inbound',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    /** invitation_accepted | message_received */
    type: text('type').notNull(),
    /** Our account id (accounts.id), not Unipile's. */
    accountId: text('account_id').notNull(),
    networkUrl: text('network_url').notNull(),
    providerId: text('provider_id').notNull(),
    chatId: text('chat_id'),
    text: text('text'),
    at: integer('at').notNull(),
    receivedAt: integer('received_at').notNull(),
    deliveredAt: integer('delivered_at'),
  },
  (t) => [index('unipile_inbound_due').on(t.deliveredAt, t.at, t.id)],
);

/** Invitations sent through Unipile, so the relations poll knows whose acceptance to look for. */
export const unipileInvitations = sqliteTable(
  'unipile_invitations',
  {
    accountId: text('account_id').notNull(),
    providerId: text('provider_id').notNull(),
    invitedAt: integer('invited_at').notNull(),
    acceptedAt: integer('accepted_at'),
    /** Unipile's id of the invitation, so a stale one can be withdrawn; null when it was not ours to know. */
    invitationId: text('invitation_id'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.providerId] }), index('unipile_invitations_pending').on(t.accountId, t.acceptedAt)],
);

/**
 * Provider id to profile URL, learnt from lookups, searches and relations. Webhooks often name
 * a person by provider id only; this turns that back into the lead's profile URL.
 */
export const unipileContacts = sqliteTable(
  'unipile_contacts',
  {
    providerId: text('provider_id').primaryKey(),
    networkUrl: text('network_url').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('unipile_contacts_url').on(t.networkUrl)],
);

/**
 * Lookalike jobs: one per create or extend, written with the campaign change and the allowance
 * reservation in one transaction, so a committed launch is never lost and the worker can pick it
 * up in any process, after any restart. `cursor` and `inserted` move together with each page of
 * inserted leads, so a job resumed after a crash continues exactly where its last page ended.
 */
export const lookalikeJobs = sqliteTable(
  'lookalike_jobs',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `lkb_…`; an extend returns it as `extensionBatchId`. */
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** create | extend */
    kind: text('kind').notNull(),
    /** The seed as the provider receives it: a normalised profile URL, or the identifier as given. */
    seed: text('seed').notNull(),
    /** JSON array: lower-cased, de-duplicated, sorted. */
    jobTitleKeywords: text('job_title_keywords').notNull(),
    /** JSON array: upper-case ISO 3166-1 alpha-2, de-duplicated, sorted. */
    countries: text('countries').notNull(),
    /** seed + titles + countries in one string: the same key means an extend continues the pool. */
    queryKey: text('query_key').notNull(),
    protectAcrossCampaigns: bool('protect_across_campaigns').notNull(),
    requested: integer('requested').notNull(),
    /** What was reserved, and from which balance (refunds go back top-up first). */
    reserved: integer('reserved').notNull(),
    reservedCredits: integer('reserved_credits').notNull(),
    reservedTopUp: integer('reserved_top_up').notNull(),
    inserted: integer('inserted').notNull().default(0),
    /** fresh | continue; null on create. */
    resume: text('resume'),
    /** The provider cursor of the next page; null before the first page. */
    cursor: text('cursor'),
    /** The provider said the pool for this query has no more candidates. */
    exhausted: bool('exhausted').notNull().default(false),
    /** pending | done */
    state: text('state').notNull(),
    /** filled | exhausted | failed, once done. */
    outcome: text('outcome'),
    /** The provider's error code when the job failed. */
    errorCode: text('error_code'),
    /** Consecutive transient provider failures; reset by every page. */
    attempts: integer('attempts').notNull().default(0),
    /** Wall ms: not claimed before this (retry backoff). */
    nextAttemptAt: integer('next_attempt_at').notNull().default(0),
    leasedBy: text('leased_by'),
    /** Wall ms. A worker that dies leaves its lease behind; the job is claimed again once it passes. */
    leasedUntil: integer('leased_until'),
    /** Allowance given back when the job finished; null until then (so it is given back once). */
    refunded: integer('refunded'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [
    index('lookalike_jobs_due').on(t.state, t.nextAttemptAt),
    index('lookalike_jobs_query').on(t.campaignId, t.queryKey, t.seq),
    // At most one job in progress per campaign, whatever path writes it.
    uniqueIndex('lookalike_jobs_one_pending').on(t.campaignId).where(sql`${t.state} = 'pending'`),
  ],
);

/**
 * Every message to and from a lead since this table exists (the dashboard's inbox). Leads
 * loaded from a workspace file start with no history. `text` is the full message; the API
 * never returns it (activity keeps an 80-character preview), only the operator's dashboard.
 */
export const messages = sqliteTable(
  'messages',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    /** The account that sent or received it; internal. */
    accountId: text('account_id'),
    /** inbound | outbound */
    direction: text('direction').notNull(),
    /** sequence | agent | operator | api | lead */
    sender: text('sender').notNull(),
    text: text('text').notNull(),
    /** Sim-clock ms, as the engine and activity record it. */
    at: integer('at').notNull(),
    /** The provider's message or event id, when known; internal. */
    externalId: text('external_id'),
    /** linkedin | email (migration 0027). An email's account is its mailbox (`mbx_…`). */
    channel: text('channel').notNull().default('linkedin'),
  },
  (t) => [index('messages_lead').on(t.leadId, t.at, t.seq)],
);

/**
 * One row per lead with messages: the inbox's thread list, kept by the same verb that records
 * a message, so listing threads newest-inbound first is one index walk, whatever the lead count.
 */
export const conversations = sqliteTable(
  'conversations',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    leadId: text('lead_id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** Newest inbound message time; 0 while the lead has never written (such threads sort last). */
    lastInboundAt: integer('last_inbound_at').notNull().default(0),
    lastMessageAt: integer('last_message_at').notNull(),
    lastDirection: text('last_direction').notNull(),
    lastSender: text('last_sender').notNull(),
    /** The first characters of the newest message. */
    lastPreview: text('last_preview').notNull(),
    messageCount: integer('message_count').notNull().default(0),
    /**
     * The triage's suggestion for the thread's newest replies: a lead tag, who made it
     * (`rule`, `model` or `assistant`), how sure (0..1), why (a rule's name or the model's few
     * words) and when. Null until something suggested; a later suggestion replaces it.
     */
    suggestedTag: text('suggested_tag'),
    suggestedBy: text('suggested_by'),
    suggestedConfidence: real('suggested_confidence'),
    suggestedReason: text('suggested_reason'),
    suggestedAt: integer('suggested_at'),
    /** The newest reply's time while it waits for the model's suggestion; null when nothing waits. */
    triagePendingAt: integer('triage_pending_at'),
    /** Wall ms until which one process asks the model about this thread; after a crash another asks again. */
    triageLeaseUntil: integer('triage_lease_until'),
    /** The channel of the newest message: linkedin | email (migration 0027). */
    lastChannel: text('last_channel').notNull().default('linkedin'),
  },
  (t) => [
    index('conversations_inbound').on(t.lastInboundAt, t.seq),
    index('conversations_suggested').on(t.suggestedTag, t.lastInboundAt, t.seq),
    index('conversations_triage_pending').on(t.triagePendingAt),
  ],
);

/** One-time dashboard login links. Only the token's SHA-256 is stored; a link works once. */
export const loginTokens = sqliteTable(
  'login_tokens',
  {
    digest: text('digest').primaryKey(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    /** The member (`usr_…`) the link signs in. */
    memberId: text('member_id'),
  },
  (t) => [index('login_tokens_expires').on(t.expiresAt)],
);

/** Dashboard sessions, by the SHA-256 of the cookie value; the cookie itself is never stored. */
export const operatorSessions = sqliteTable(
  'operator_sessions',
  {
    digest: text('digest').primaryKey(),
    /** `ses_…`: names the session in logs without revealing its cookie. */
    id: text('id').notNull().unique(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    lastSeenAt: integer('last_seen_at').notNull(),
    revokedAt: integer('revoked_at'),
    /** The member (`usr_…`) signed in; a session whose member is disabled opens nothing. */
    memberId: text('member_id'),
  },
  (t) => [index('operator_sessions_expires').on(t.expiresAt), index('operator_sessions_member').on(t.memberId)],
);

/**
 * CSV imports started from the dashboard, which run in the server's background. The file is
 * kept until the import ends, so a server restarted mid-import resumes after the last row it
 * recorded; progress is here so `get_import` answers from any process, after any restart.
 */
export const leadImports = sqliteTable(
  'lead_imports',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `imp_…` */
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    /** running | done | failed */
    status: text('status').notNull(),
    /** The CSV text; cleared when the import ends. */
    csv: text('csv'),
    /** JSON object header → field, as given. */
    map: text('map').notNull().default('{}'),
    rowsTotal: integer('rows_total').notNull(),
    rowsDone: integer('rows_done').notNull().default(0),
    /** JSON: the batch summary's counts so far. */
    summary: text('summary').notNull(),
    creditsCharged: integer('credits_charged').notNull().default(0),
    error: text('error'),
    /** The file line of a malformed record that stopped the import, if one did. */
    stoppedLine: integer('stopped_line'),
    /** JSON array: the file's header row, for the CSV of rejected rows. */
    header: text('header').notNull().default('[]'),
    delimiter: text('delimiter').notNull().default(','),
    /** Wall ms of the runner's last progress. */
    heartbeatAt: integer('heartbeat_at').notNull(),
    createdAt: integer('created_at').notNull(),
    finishedAt: integer('finished_at'),
  },
  (t) => [index('lead_imports_status').on(t.status)],
);

/** The rows of a dashboard import that were not created, with why, to fix and import again. */
export const leadImportRows = sqliteTable(
  'lead_import_rows',
  {
    importId: text('import_id').notNull(),
    /** The file line the row starts on (the header is line 1). */
    line: integer('line').notNull(),
    /** An add status other than created. */
    status: text('status').notNull(),
    field: text('field'),
    message: text('message').notNull(),
    /** JSON array: the row's values as in the file. */
    cells: text('cells').notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.line] })],
);

/**
 * Drafts that a person approves before the engine sends them (campaigns with `approval:
 * required`). Written by src/core/drafts/store.ts alone, which SQLite enforces (src/db/drafts-writer.ts,
 * migration 0019); its status is a state machine of its own: pending → approved | rejected | skipped,
 * approved → rejected | pending | sent | skipped (DRAFT_TRANSITIONS in that store, the one place it is written).
 */
export const drafts = sqliteTable(
  'drafts',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `drf_…` */
    id: text('id').notNull().unique(),
    campaignId: text('campaign_id').notNull(),
    leadId: text('lead_id').notNull(),
    /** The step (`stp_…`) the draft is for; null for an agent's reply to an inbound message. */
    stepId: text('step_id'),
    /** What makes a draft unique for its lead: `step:<stepId>` or `reply:<n>`. */
    slot: text('slot').notNull(),
    variant: text('variant'),
    /** invite | message | inmail */
    kind: text('kind').notNull(),
    /** The sender the engine fixed for the lead, when known; the confirmation names it. */
    accountId: text('account_id'),
    subject: text('subject'),
    text: text('text').notNull(),
    /** The step's text rendered for the lead, kept beside an edited or rewritten one. */
    renderedSubject: text('rendered_subject'),
    renderedText: text('rendered_text').notNull(),
    /** pending | approved | rejected | sent | skipped */
    status: text('status').notNull(),
    /** Starts at 1 and grows by one with each change of `text` or `subject` (migration 0021 holds it). */
    revision: integer('revision').notNull().default(1),
    /** Why a `skipped` draft's step could no longer be sent; null otherwise. */
    skipReason: text('skip_reason'),
    /** Sim-clock ms when it was last approved (the auditor holds the engine to send it within the sender's next working window); null unless approved or sent. */
    approvedAt: integer('approved_at'),
    /** Why the optional model's rewrite was not used; null when it was, or when none ran. */
    drafterError: text('drafter_error'),
    /** Who last approved or rejected it (a member, a key or an OAuth client): `decidedBy`; null until a person decides. */
    decidedByType: text('decided_by_type'),
    decidedById: text('decided_by_id'),
    decidedByName: text('decided_by_name'),
    /** The engine intent sending it right now; while set, the draft cannot change. Internal. */
    sendingIntentId: text('sending_intent_id'),
    sentAt: integer('sent_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('drafts_lead_slot').on(t.leadId, t.slot),
    // list_drafts: oldest first, by campaign and/or status; and the pending count per campaign.
    index('drafts_campaign_status').on(t.campaignId, t.status, t.seq),
    index('drafts_status').on(t.status, t.seq),
    index('drafts_campaign').on(t.campaignId, t.seq),
  ],
);

/**
 * Where each lead is in its agent's steps (src/core/sequences): the step it is at, since when,
 * or how its sequence ended. One row per lead that started a sequence.
 */
export const leadPositions = sqliteTable(
  'lead_positions',
  {
    leadId: text('lead_id').primaryKey(),
    campaignId: text('campaign_id').notNull(),
    agentId: text('agent_id').notNull(),
    /** The step the lead is at (`stp_…`); null once the sequence ended. */
    stepId: text('step_id'),
    /** Sim-clock ms when the lead reached that step: a `wait` or an `if` counts its hours from here. */
    enteredAt: integer('entered_at').notNull(),
    /** completed | replied | step_removed | failed | rejected | excluded | enrichment_failed; null while it runs. */
    endReason: text('end_reason'),
    endedAt: integer('ended_at'),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('lead_positions_step').on(t.agentId, t.stepId)],
);

/** The variant drawn for a lead at a step: drawn once, when the step first runs, and kept. */
/**
 * What the engine learned looking up a lead known only by its profile URL (migration 0022): when
 * the lookup filled it in, or how many lookups failed in a row and why. One row per lead looked up.
 */
export const leadEnrichment = sqliteTable('lead_enrichment', {
  leadId: text('lead_id').primaryKey(),
  /** Failed lookups in a row; the third ends the lead's sequence (`enrichment_failed`). */
  failures: integer('failures').notNull().default(0),
  /** The provider's error code of the last failed lookup. */
  lastError: text('last_error'),
  /** Sim-clock ms when a lookup filled the lead in; null until one did. */
  enrichedAt: integer('enriched_at'),
  updatedAt: integer('updated_at').notNull(),
});

export const leadStepVariants = sqliteTable(
  'lead_step_variants',
  {
    leadId: text('lead_id').notNull(),
    stepId: text('step_id').notNull(),
    /** A, B, C… (A is the step's own text). */
    variant: text('variant').notNull(),
    drawnAt: integer('drawn_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.leadId, t.stepId] })],
);

/**
 * What happened at each step for each lead: sent (carried out), skipped (with why), accepted
 * (an invite's), replied (the last step sent before a reply). Kept for the dashboard's "why";
 * `step_stats` holds the same counted, for get_agent_stats.
 */
export const stepEvents = sqliteTable(
  'step_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    agentId: text('agent_id').notNull(),
    stepId: text('step_id').notNull(),
    kind: text('kind').notNull(),
    variant: text('variant').notNull(),
    /** sent | skipped | accepted | replied | bounced (an email step's send that bounced) */
    event: text('event').notNull(),
    /** Why a step was skipped (not_connected, no_posts, no_sales_navigator, …); null otherwise. */
    reason: text('reason'),
    at: integer('at').notNull(),
  },
  (t) => [
    index('step_events_lead').on(t.leadId, t.seq),
    index('step_events_step').on(t.agentId, t.stepId, t.seq),
    // Why steps were skipped, counted for the dashboard from the skips alone: sends, far more
    // numerous, stay out of this index.
    index('step_events_skips').on(t.agentId, t.campaignId, t.stepId, t.variant, t.reason).where(sql`${t.event} = 'skipped'`),
  ],
);

/** Per campaign, step and variant: the counts get_agent_stats sums, kept with each event. */
export const stepStats = sqliteTable(
  'step_stats',
  {
    agentId: text('agent_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    stepId: text('step_id').notNull(),
    variant: text('variant').notNull(),
    sent: integer('sent').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    accepted: integer('accepted').notNull().default(0),
    replied: integer('replied').notNull().default(0),
    /** An email step's sends that bounced (migration 0024). */
    bounced: integer('bounced').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.campaignId, t.stepId, t.variant] })],
);

/**
 * The people of the workspace (src/core/members). The first is the owner; there is one owner,
 * and the owner cannot be disabled or given another role.
 */
export const members = sqliteTable(
  'members',
  {
    /** `usr_…` */
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    /** Lowercased; unique among members. Null only for the owner made on first use, until set. */
    email: text('email').unique(),
    /** owner | admin | operator | reviewer | viewer */
    role: text('role').notNull(),
    createdAt: integer('created_at').notNull(),
    disabledAt: integer('disabled_at'),
  },
  (t) => [check('members_role', sql`${t.role} in ('owner', 'admin', 'operator', 'reviewer', 'viewer')`)],
);

/**
 * The audit trail (src/core/audit): one row per write, inserted in the transaction of the write
 * it records. Append-only: triggers (migration 0025) refuse every UPDATE and DELETE. It holds
 * ids, names and a short summary, never a secret, a key or a message body.
 */
export const auditEvents = sqliteTable(
  'audit_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `aud_…`, in time order */
    id: text('id').notNull().unique(),
    /** member | key | oauth_client */
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id').notNull(),
    actorName: text('actor_name').notNull(),
    /** The tool or action, e.g. `add_leads_batch`, `members.add`. */
    action: text('action').notNull(),
    /** The target ids as a JSON array of strings. */
    targets: text('targets').notNull(),
    summary: text('summary').notNull(),
    /** Wall-clock ms. */
    at: integer('at').notNull(),
  },
  (t) => [index('audit_events_at').on(t.at, t.seq), index('audit_events_actor').on(t.actorId, t.seq)],
);

/** One row per target of an audit event, so a filter by target reads an index; append-only like its event. */
export const auditTargets = sqliteTable(
  'audit_targets',
  {
    targetId: text('target_id').notNull(),
    eventSeq: integer('event_seq').notNull(),
  },
  (t) => [primaryKey({ columns: [t.targetId, t.eventSeq] })],
);

/**
 * Mailboxes (migration 0027): the sending identities of the email channel. Passwords are never
 * stored: `smtp_password_env` and `imap_password_env` name the environment variables that hold
 * them. A simulated mailbox (`kind` sim, development only) has no servers.
 */
export const mailboxes = sqliteTable('mailboxes', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  id: text('id').notNull().unique(),
  name: text('name').notNull(),
  address: text('address').notNull().unique(),
  fromName: text('from_name'),
  /** smtp | sim */
  kind: text('kind').notNull(),
  smtpHost: text('smtp_host'),
  smtpPort: integer('smtp_port'),
  smtpSecure: bool('smtp_secure'),
  smtpUser: text('smtp_user'),
  smtpPasswordEnv: text('smtp_password_env'),
  imapHost: text('imap_host'),
  imapPort: integer('imap_port'),
  imapSecure: bool('imap_secure'),
  imapUser: text('imap_user'),
  imapPasswordEnv: text('imap_password_env'),
  dailyLimit: integer('daily_limit').notNull(),
  /** Sim-clock ms when the warm-up began; null: full limit at once. */
  warmUpStartedAt: integer('warm_up_started_at'),
  /** IANA zone of the working hours; null uses the config's default. */
  timeZone: text('time_zone'),
  /** JSON `{ start, end, days }` or `"always"`; null uses the config's default working hours. */
  workingHours: text('working_hours'),
  /** The shortest pause between two sends of the mailbox. */
  spacingSeconds: integer('spacing_seconds').notNull(),
  /** connected | paused | login_failed */
  status: text('status').notNull(),
  /** The last server refusal, for the operator; null while the mailbox works. */
  lastError: text('last_error'),
  /** Where reading the inbox stopped: the IMAP UIDVALIDITY and the last UID read. */
  inboxUidValidity: text('inbox_uid_validity'),
  inboxLastUid: integer('inbox_last_uid').notNull().default(0),
  /** Wall ms of the last completed inbox read; null before the first. */
  inboxReadAt: integer('inbox_read_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * Every email sent (migration 0027): its Message-ID, so a reply is matched by In-Reply-To or
 * References and a bounce by the original message it quotes. `state` sending while the server
 * has it, then sent or failed; bounced_at and replied_at record what came back.
 */
export const emailSends = sqliteTable(
  'email_sends',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    messageId: text('message_id').notNull().unique(),
    mailboxId: text('mailbox_id').notNull(),
    leadId: text('lead_id').notNull(),
    campaignId: text('campaign_id').notNull(),
    /** The recipient, lower-cased. */
    address: text('address').notNull(),
    subject: text('subject').notNull(),
    /** sending | sent | failed */
    state: text('state').notNull(),
    error: text('error'),
    /** Sim-clock ms of the send's start. */
    at: integer('at').notNull(),
    bouncedAt: integer('bounced_at'),
    repliedAt: integer('replied_at'),
  },
  (t) => [index('email_sends_mailbox_at').on(t.mailboxId, t.at), index('email_sends_lead').on(t.leadId, t.at), index('email_sends_address').on(t.address)],
);

/** The workspace's excluded email addresses (migration 0027): never mailed again, by any campaign. */
export const emailExclusions = sqliteTable('email_exclusions', {
  /** Lower-cased. */
  address: text('address').primaryKey(),
  /** unsubscribed | bounced */
  reason: text('reason').notNull(),
  createdAt: integer('created_at').notNull(),
});

/**
 * The simulated mail server's inbox (migration 0027): raw messages the simulator delivers to a
 * simulated mailbox, each readable from `visible_at` (sim-clock ms). Development only.
 */
export const simMail = sqliteTable(
  'sim_mail',
  {
    uid: integer('uid').primaryKey({ autoIncrement: true }),
    mailboxId: text('mailbox_id').notNull(),
    visibleAt: integer('visible_at').notNull(),
    raw: text('raw').notNull(),
  },
  (t) => [index('sim_mail_mailbox').on(t.mailboxId, t.uid)],
);

export * from './schema/lead-email.js';
