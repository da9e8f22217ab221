/**
 * Synthetic leads for benchmarks and scale tests. Every value is a pure function of the
 * campaign and the lead's ordinal, so two runs build the same database. The mix exercises
 * every list filter and sort, each with at least 5% of the leads, so page 1000 of 50 exists at
 * a million: tags (some without taggedAt, as on historical rows), replies, inbound messages,
 * needsReply, exclusions, search-sourced leads, and names that are empty or whitespace so the
 * fullName fallback runs. Leads come in groups of 10 sharing one createdAt,
 * as batch inserts do, so keyset ties are exercised too.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { transaction } from '../../db/tx.js';
import { CREATED_STATUS, restoreCampaign } from '../campaigns/state-machine.js';
import { addToTotalLeads, campaignExists, totalLeadsOf } from '../campaigns/store.js';
import { highestLeadIdBetween, leadInserter, withLargePageCache } from '../leads/store.js';
import type { Ctx } from '../context.js';
import { AUTO_EXCLUDE_TAGS, LEAD_TAGS, type LeadTag } from '../leads/enums.js';

export interface GenerateLeadsOptions {
  /** createdAt of the first lead (epoch ms); later ones are one second apart per group of 10. */
  start?: number;
}

export const FIXTURE_START = Date.UTC(2025, 0, 1);

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Ken',
  'Margaret',
  'Dennis',
  'Radia',
  'Tim',
  'Hedy',
  'John',
  'Sophie',
  'Linus',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Thompson',
  'Hamilton',
  'Ritchie',
  'Perlman',
  'Lee',
  'Lamarr',
  'Backus',
  'Wilson',
  'Torvalds',
];
const TITLES = ['CTO', 'VP Engineering', 'Head of Sales', 'Founder', 'Product Manager', 'Data Scientist', 'Recruiter', 'CFO'];
const COMPANIES = ['Engines Ltd', 'Analytical Co', 'Compilers Inc', 'Graph Labs', 'Kernel Works', 'Signal GmbH', 'Ledger SA', 'Orbit BV'];
const COMPANY_PAGES = COMPANIES.map((name) => ({
  name,
  network: `https://www.linkedin.com/company/${name.toLowerCase().replace(/\W+/g, '-')}`,
  website: `https://${name.toLowerCase().replace(/\W+/g, '')}.example`,
}));
const CITIES = ['London', 'Berlin', 'Paris', 'Amsterdam', 'Lisbon', 'Madrid', 'Warsaw', 'Dublin'];
const SOURCES = ['manual', 'search', 'lookalike'] as const;
const EARLY_STAGES = ['new', 'connection_sent', 'connected', 'messaged'] as const;

const COLUMNS = [
  'id',
  'campaign_id',
  'network_url',
  'full_name',
  'first_name',
  'last_name',
  'job_title',
  'company_name',
  'company_network',
  'website',
  'email',
  'location',
  'headline',
  'personalization',
  'work_experience',
  'tag',
  'tagged_at',
  'stage',
  'excluded',
  'replied',
  'needs_reply',
  'replied_at',
  'last_inbound_message_at',
  'connection_request_accepted',
  'message_sent',
  'source',
  'provider_id',
  'created_at',
  'updated_at',
];

/** A 32-bit avalanche of the ordinal (murmur3's finaliser): cheap, and every bit depends on every input bit. */
function mix(n: number, salt: number): number {
  let h = (n ^ salt) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

const pick = <T>(list: readonly T[], h: number): T => list[h % list.length] as T;

/** The column values of fixture lead `n` of a campaign, in COLUMNS order. */
function leadValues(campaignId: string, key: string, salt: number, n: number, start: number): (string | number | null)[] {
  const h = mix(n, salt);
  const g = mix(h, 0x9e3779b9);
  const createdAt = start + Math.floor(n / 10) * 1000;
  const first = pick(FIRST, h);
  const last = pick(LAST, h >>> 4);
  const names =
    h % 8 === 0 ? { full: '   ', first: ` ${first} `, last: '' } : h % 8 === 1 ? { full: null, first, last } : { full: `${first} ${last}`, first, last };
  const title = pick(TITLES, h >>> 8);
  const { name: company, network: companyNetwork, website } = pick(COMPANY_PAGES, h >>> 11);
  const source = pick(SOURCES, h >>> 14);
  const tag: LeadTag | null = g % 12 < 6 ? pick(LEAD_TAGS, g) : null;
  // One tagged lead in eight predates taggedAt (spec: null on historical rows).
  const taggedAt = tag !== null && (g >>> 4) % 8 !== 0 ? createdAt + 3_600_000 + ((g >>> 7) % 1000) * 1000 : null;
  const replied = (g >>> 12) % 5 === 0;
  // One unreplied lead in ten keeps a repliedAt (its reply was handled and the flag cleared), so
  // replied=false sorted by repliedAt fills a thousand pages at a million leads, as the bench needs.
  const repliedAt = replied || (g >>> 15) % 10 === 0 ? createdAt + 86_400_000 + ((g >>> 15) % 600) * 1000 : null;
  const lastInbound = repliedAt !== null ? repliedAt + ((g >>> 20) % 3600) * 1000 : (g >>> 20) % 10 === 0 ? createdAt + 7_200_000 : null;
  const needsReply = replied && (g >>> 24) % 2 === 0;
  const excluded = (tag !== null && AUTO_EXCLUDE_TAGS.has(tag)) || (g >>> 26) % 20 === 0;
  const stage = excluded ? 'excluded' : replied ? 'replied' : tag !== null ? 'tagged' : pick(EARLY_STAGES, g >>> 28);
  const slug = `fixture-${key}-${n.toString(36).padStart(7, '0')}`;
  const experience =
    h % 10 === 0
      ? JSON.stringify([
          { company, position: title, location: pick(CITIES, h >>> 17), description: null, start: '2021-03', end: null },
          { company: pick(COMPANIES, h >>> 20), position: 'Engineer', location: null, description: '  ', start: '2016-09', end: '2021-02' },
        ])
      : '[]';
  return [
    `lead_fx_${key}_${n.toString(36).padStart(7, '0')}`,
    campaignId,
    `https://www.linkedin.com/in/${slug}`,
    names.full,
    names.first,
    names.last,
    title,
    company,
    companyNetwork,
    website,
    `${first.toLowerCase()}.${last.toLowerCase()}.${n}@example.com`,
    pick(CITIES, h >>> 17),
    `${title} at ${company}`,
    (h >>> 3) % 4 === 0 ? `Mention ${company}` : null,
    experience,
    tag,
    taggedAt,
    stage,
    excluded ? 1 : 0,
    replied ? 1 : 0,
    needsReply ? 1 : 0,
    repliedAt,
    lastInbound,
    stage === 'excluded' || stage === 'new' || stage === 'connection_sent' ? 0 : 1,
    stage === 'messaged' || replied ? 1 : 0,
    source,
    `ACoAAfixture${n}`,
    createdAt,
    createdAt,
  ];
}

/**
 * Appends `count` leads to a campaign (which must exist) in one transaction through one
 * prepared statement, and bumps its totalLeads. Ordinals continue after the fixture leads
 * already there, so repeated calls add more rather than colliding. Returns the ordinals written.
 */
export function generateLeads(db: Db, campaignId: string, count: number, opts: GenerateLeadsOptions = {}): { from: number; to: number } {
  const key = createHash('sha256').update(campaignId).digest('hex').slice(0, 8);
  const salt = Number.parseInt(key, 16);
  const start = opts.start ?? FIXTURE_START;
  const prefix = `lead_fx_${key}_`;
  const insert = leadInserter(db, COLUMNS);
  // Ids are fixed-width base36, so the highest id holds the highest ordinal; '`' sorts right after '_'.
  const maxId = highestLeadIdBetween(db, prefix, `lead_fx_${key}\``);
  const from = maxId ? Number.parseInt(maxId.slice(prefix.length), 36) + 1 : 0;
  withLargePageCache(db, () =>
    transaction(db, () => {
      if (!campaignExists({ db }, campaignId)) throw new Error(`no campaign "${campaignId}"`);
      for (let n = from; n < from + count; n++) insert(leadValues(campaignId, key, salt, n, start));
      addToTotalLeads({ db }, campaignId, count);
    }),
  );
  return { from, to: from + count };
}

/**
 * `npm run fixture`: creates the campaign when it is missing, then appends `count` fixture leads
 * to it. Returns how many were written and the campaign's total afterwards.
 */
export function fillFixtureCampaign(ctx: Ctx, campaignId: string, count: number): { written: number; totalLeads: number | undefined } {
  const now = ctx.clock.now();
  restoreCampaign(ctx, { id: campaignId, name: `Fixture ${campaignId}`, status: CREATED_STATUS.plain, createdAt: now, updatedAt: now }, { ifMissing: true });
  const { from, to } = generateLeads(ctx.db, campaignId, count);
  const totalLeads = totalLeadsOf(ctx, campaignId);
  return { written: to - from, totalLeads };
}
