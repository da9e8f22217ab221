import { LEAD_TAGS, type LeadSort, type LeadTag, type ToolArgs } from '../../types.js';

/** The one filter list_leads allows at a time. */
export type LeadFilter =
  | { kind: 'none' }
  | { kind: 'tag'; tag: LeadTag }
  | { kind: 'replied'; value: boolean }
  | { kind: 'needsReply'; value: boolean }
  | { kind: 'excluded' };

/** The sorts list_leads accepts with each filter (its sort matrix); others are refused by the server. */
export const SORTS_BY_FILTER: Record<LeadFilter['kind'], readonly LeadSort[]> = {
  none: ['createdAt', 'lastInboundMessageAt'],
  tag: ['createdAt', 'taggedAt'],
  replied: ['createdAt', 'repliedAt', 'lastInboundMessageAt'],
  needsReply: ['createdAt'],
  excluded: ['createdAt'],
};

export const FILTER_OPTIONS: { value: string; label: string; filter: LeadFilter }[] = [
  { value: 'none', label: 'All leads', filter: { kind: 'none' } },
  { value: 'needsReply:true', label: 'Needs reply', filter: { kind: 'needsReply', value: true } },
  { value: 'needsReply:false', label: 'Does not need reply', filter: { kind: 'needsReply', value: false } },
  { value: 'replied:true', label: 'Replied', filter: { kind: 'replied', value: true } },
  { value: 'replied:false', label: 'Not replied', filter: { kind: 'replied', value: false } },
  { value: 'excluded', label: 'Excluded', filter: { kind: 'excluded' } },
  ...LEAD_TAGS.map((tag) => ({ value: `tag:${tag}`, label: `Tag: ${tag}`, filter: { kind: 'tag', tag } as LeadFilter })),
];

/** The select's value for a filter. */
export const filterValue = (f: LeadFilter): string =>
  f.kind === 'none' ? 'none' : f.kind === 'excluded' ? 'excluded' : f.kind === 'tag' ? `tag:${f.tag}` : `${f.kind}:${String(f.value)}`;

export const filterFromValue = (value: string): LeadFilter => FILTER_OPTIONS.find((o) => o.value === value)?.filter ?? { kind: 'none' };

/** list_leads arguments for a filter, sort and page. */
export function leadsArgs(campaignId: string, filter: LeadFilter, sort: LeadSort, cursor: string | null, limit = 50): ToolArgs<'list_leads'> {
  const args: ToolArgs<'list_leads'> = { campaignId, sort, limit };
  if (filter.kind === 'tag') args.tag = filter.tag;
  if (filter.kind === 'replied') args.replied = filter.value;
  if (filter.kind === 'needsReply') args.needsReply = filter.value;
  if (filter.kind === 'excluded') args.excluded = true;
  if (cursor) args.cursor = cursor;
  return args;
}

/** The table's filter for a list_leads call: the one filter it carries, if any. */
export function filterOf(args: ToolArgs<'list_leads'> | undefined): LeadFilter {
  if (args?.tag) return { kind: 'tag', tag: args.tag };
  if (args?.replied !== undefined) return { kind: 'replied', value: args.replied };
  if (args?.needsReply !== undefined) return { kind: 'needsReply', value: args.needsReply };
  if (args?.excluded) return { kind: 'excluded' };
  return { kind: 'none' };
}
