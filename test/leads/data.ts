import type { LeadSort } from '../../src/core/leads/list.js';
import type { WorkspaceFileInput } from '../../src/core/seed/file.js';
import { fixture } from '../helpers.js';

type CampaignInput = NonNullable<WorkspaceFileInput['campaigns']>[number];
export type LeadInput = NonNullable<CampaignInput['leads']>[number];

/** The fields of a lead that decide whether and where it appears in a list. */
export interface ModelLead {
  id: string;
  createdAt: number;
  tag: 'Interested' | 'Not interested' | 'Meeting request' | null;
  taggedAt: number | null;
  replied: boolean;
  repliedAt: number | null;
  lastInboundMessageAt: number | null;
  needsReply: boolean;
  excluded: boolean;
}

export const T0 = Date.parse('2026-10-01T00:00:00Z');
const MIN = 60_000;

/**
 * `n` leads covering every filter and sort: createdAt in groups of three equal values (ties),
 * tagged leads without taggedAt, replied leads without repliedAt, an unreplied lead with a
 * repliedAt, and leads with and without inbound messages.
 */
export function listDataset(prefix: string, n = 30): ModelLead[] {
  return Array.from({ length: n }, (_, i) => {
    const createdAt = T0 + Math.floor(i / 3) * MIN;
    const tag = i % 4 === 0 ? 'Interested' : i % 4 === 1 ? 'Not interested' : null;
    const replied = i % 3 === 0;
    const repliedAt = (replied && i % 9 !== 0) || i === 10 || i === 20 ? createdAt + 120 * MIN : null;
    return {
      id: `lead_${prefix}${String(i).padStart(2, '0')}`,
      createdAt,
      tag,
      // Every other Interested lead predates taggedAt; two tagged leads share one taggedAt.
      taggedAt: tag === null || i % 8 === 0 ? null : i < 6 ? T0 + 500 * MIN : createdAt + 60 * MIN,
      replied,
      repliedAt,
      lastInboundMessageAt: repliedAt !== null ? repliedAt + 5 * MIN : i % 5 === 0 ? createdAt + 30 * MIN : null,
      needsReply: i % 6 === 0,
      excluded: i % 7 === 0 || tag === 'Not interested',
    };
  });
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toEntry(m: ModelLead, i: number): LeadInput {
  return {
    id: m.id,
    networkUrl: `https://www.linkedin.com/in/${m.id.replace(/_/g, '-')}`,
    firstName: `First${i}`,
    lastName: 'Last',
    tag: m.tag,
    taggedAt: isoOrNull(m.taggedAt),
    replied: m.replied,
    repliedAt: isoOrNull(m.repliedAt),
    lastInboundMessageAt: isoOrNull(m.lastInboundMessageAt),
    needsReply: m.needsReply,
    excluded: m.excluded,
    createdAt: isoOrNull(m.createdAt) as string,
  };
}

/** The shared fixture plus one campaign per entry, holding those leads in order. */
export function workspaceWith(campaigns: Record<string, ModelLead[]>): WorkspaceFileInput {
  const file = fixture();
  for (const [id, leads] of Object.entries(campaigns)) {
    file.campaigns!.push({ id, name: id, status: 'CAMPAIGN_IN_PROGRESS', leads: leads.map(toEntry) });
  }
  return file;
}

export interface ModelQuery {
  tag?: ModelLead['tag'];
  replied?: boolean;
  needsReply?: boolean;
  excluded?: true;
  sort?: LeadSort;
}

/** What a list must return, in order: matching leads that have the sort field, newest first, later-inserted first on ties. */
export function expectedIds(leads: ModelLead[], q: ModelQuery): string[] {
  const sort = q.sort ?? 'createdAt';
  return leads
    .map((lead, seq) => ({ lead, seq, value: lead[sort] }))
    .filter(({ lead }) => q.tag === undefined || lead.tag === q.tag)
    .filter(({ lead }) => q.replied === undefined || lead.replied === q.replied)
    .filter(({ lead }) => q.needsReply === undefined || lead.needsReply === q.needsReply)
    .filter(({ lead }) => q.excluded === undefined || lead.excluded)
    .filter((x): x is typeof x & { value: number } => x.value !== null)
    .sort((a, b) => b.value - a.value || b.seq - a.seq)
    .map(({ lead }) => lead.id);
}

/** Every allowed (filter, sort) pair of the matrix, with filter values that select something. */
export const ALLOWED_QUERIES: ModelQuery[] = [
  { sort: 'createdAt' },
  { sort: 'lastInboundMessageAt' },
  { tag: 'Interested', sort: 'createdAt' },
  { tag: 'Interested', sort: 'taggedAt' },
  { tag: 'Not interested', sort: 'taggedAt' },
  { replied: true, sort: 'createdAt' },
  { replied: true, sort: 'repliedAt' },
  { replied: true, sort: 'lastInboundMessageAt' },
  { replied: false, sort: 'createdAt' },
  { replied: false, sort: 'repliedAt' },
  { replied: false, sort: 'lastInboundMessageAt' },
  { needsReply: true, sort: 'createdAt' },
  { needsReply: false, sort: 'createdAt' },
  { excluded: true, sort: 'createdAt' },
];

/** Every disallowed pair of the matrix. */
export const REJECTED_QUERIES: ModelQuery[] = [
  { sort: 'taggedAt' },
  { sort: 'repliedAt' },
  { tag: 'Interested', sort: 'repliedAt' },
  { tag: 'Interested', sort: 'lastInboundMessageAt' },
  { replied: true, sort: 'taggedAt' },
  { needsReply: true, sort: 'taggedAt' },
  { needsReply: true, sort: 'repliedAt' },
  { needsReply: false, sort: 'lastInboundMessageAt' },
  { excluded: true, sort: 'taggedAt' },
  { excluded: true, sort: 'repliedAt' },
  { excluded: true, sort: 'lastInboundMessageAt' },
];
