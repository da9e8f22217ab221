import { z } from 'zod';

/**
 * The per-key rate classes of the spec's Limits table. A tool names its class
 * (`defineTool({ rateLimit: 'leads_add' })`); REST and MCP then draw from the same bucket.
 * `routes` are the spec's routes in Express syntax; the registry test checks that every tool on
 * one of them names this class.
 */
export const RATE_CLASSES = {
  leads_add: { label: 'single lead adds', perMinute: 60, routes: ['POST /campaigns/:campaignId/leads'] },
  leads_batch_add: { label: 'batch lead adds', perMinute: 10, routes: ['POST /campaigns/:campaignId/leads/batch'] },
  leads_batch_update: { label: 'batch lead updates', perMinute: 6, routes: ['POST /campaigns/:campaignId/leads/batch-update'] },
  leads_batch_delete: { label: 'batch lead deletes', perMinute: 10, routes: ['POST /campaigns/:campaignId/leads/batch-delete'] },
  lead_update: { label: 'lead updates', perMinute: 60, routes: ['PATCH /campaigns/:campaignId/leads/:leadId'] },
  /** One bucket for both: the spec gives start and pause one 30/minute limit. */
  campaign_start_pause: {
    label: 'campaign starts and pauses',
    perMinute: 30,
    routes: ['POST /campaigns/:campaignId/start', 'POST /campaigns/:campaignId/pause'],
  },
  inbox_message: { label: 'inbox messages', perMinute: 10, routes: ['POST /inbox/messages'] },
  profile_lookup: { label: 'profile lookups', perMinute: 5, routes: ['POST /network/profiles/lookup'] },
  people_search: { label: 'people searches', perMinute: 6, routes: ['POST /network/search'] },
  lookalike: { label: 'Lookalike campaigns', perMinute: 6, routes: ['POST /campaigns/lookalike'] },
  /** The management write routes (the `manage` toolset) share one bucket. */
  manage: {
    label: 'management writes',
    perMinute: 30,
    routes: [
      'POST /campaigns',
      'PATCH /campaigns/:campaignId',
      'POST /agents',
      'PATCH /agents/:agentId',
      'POST /accounts',
      'PATCH /accounts/:accountId',
      'POST /mailboxes',
      'PATCH /mailboxes/:mailboxId',
      'POST /drafts/batch-update',
    ],
  },
} as const;

export type RateClass = keyof typeof RATE_CLASSES;
export const RATE_CLASS_NAMES = Object.keys(RATE_CLASSES) as RateClass[];

/** Operations with per-account spacing and a daily network quota. */
export type NetworkOperation = 'profile_lookup' | 'people_search';

/** Every limit, resolved. Per-minute values are bucket capacities and refill per minute. */
export interface Limits {
  /** Per API key, on every /public/v1 request and every tool call. */
  globalPerMinute: number;
  perMinute: Record<RateClass, number>;
  /** Minimum seconds between accepted requests on one network account; 0 turns spacing off. */
  accountSpacingSeconds: Record<NetworkOperation, number>;
  /** Per network account and UTC day, by whether the account has Sales Navigator. */
  daily: {
    profileLookups: { classic: number; salesNavigator: number };
    searchResults: { classic: number; salesNavigator: number };
  };
  /** Failed authentications per client address per minute before further attempts get 429. */
  authFailuresPerMinute: number;
}

export const DEFAULT_LIMITS: Limits = {
  globalPerMinute: 120,
  perMinute: Object.fromEntries(RATE_CLASS_NAMES.map((c) => [c, RATE_CLASSES[c].perMinute])) as Record<RateClass, number>,
  accountSpacingSeconds: { profile_lookup: 20, people_search: 15 },
  daily: {
    profileLookups: { classic: 80, salesNavigator: 150 },
    searchResults: { classic: 1000, salesNavigator: 1500 },
  },
  authFailuresPerMinute: 20,
};

const PerMinute = z.number().int().min(1).max(1_000_000);
const Daily = z.number().int().min(0).max(10_000_000);
const DailyPair = z.strictObject({ classic: Daily.optional(), salesNavigator: Daily.optional() });

/**
 * The `limits` section of the `--config` file. Every key is optional and falls back to the
 * spec's value; unknown keys are refused so a misspelt limit is named instead of ignored.
 */
export const LimitsConfig = z.strictObject({
  globalPerMinute: PerMinute.optional(),
  perMinute: z.partialRecord(z.enum(RATE_CLASS_NAMES), PerMinute).optional(),
  accountSpacingSeconds: z.partialRecord(z.enum(['profile_lookup', 'people_search']), z.number().int().min(0).max(86_400)).optional(),
  daily: z.strictObject({ profileLookups: DailyPair.optional(), searchResults: DailyPair.optional() }).optional(),
  authFailuresPerMinute: PerMinute.optional(),
});
export type LimitsConfig = z.infer<typeof LimitsConfig>;

/** The spec's limits with a config section laid over them. */
export function resolveLimits(config: LimitsConfig = {}): Limits {
  const d = DEFAULT_LIMITS;
  return {
    globalPerMinute: config.globalPerMinute ?? d.globalPerMinute,
    perMinute: { ...d.perMinute, ...config.perMinute },
    accountSpacingSeconds: { ...d.accountSpacingSeconds, ...config.accountSpacingSeconds },
    daily: {
      profileLookups: { ...d.daily.profileLookups, ...config.daily?.profileLookups },
      searchResults: { ...d.daily.searchResults, ...config.daily?.searchResults },
    },
    authFailuresPerMinute: config.authFailuresPerMinute ?? d.authFailuresPerMinute,
  };
}
