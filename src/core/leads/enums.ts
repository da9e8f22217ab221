import { z } from 'zod';

export const LEAD_TAGS = ['Meeting request', 'Interested', 'Information request', 'Not interested', 'Wrong person', 'To be defined'] as const;
export const LeadTag = z.enum(LEAD_TAGS);
export type LeadTag = z.infer<typeof LeadTag>;

/** Tags that exclude a lead from outreach. */
export const AUTO_EXCLUDE_TAGS: ReadonlySet<LeadTag> = new Set<LeadTag>(['Not interested', 'Wrong person']);

export const LEAD_STAGES = ['new', 'connection_sent', 'connected', 'messaged', 'replied', 'tagged', 'excluded', 'failed', 'handed_off'] as const;
export const LeadStage = z.enum(LEAD_STAGES);
export type LeadStage = z.infer<typeof LeadStage>;

export const LEAD_SOURCES = ['manual', 'search', 'lookalike'] as const;
export const LeadSource = z.enum(LEAD_SOURCES);
export type LeadSource = z.infer<typeof LeadSource>;

export const ACTIVITY_TYPES = [
  'connection_request_sent',
  'connection_accepted',
  'message_sent',
  'reply_received',
  'agent_replied',
  'cta_sent',
  'agent_handed_off',
] as const;
export const ActivityType = z.enum(ACTIVITY_TYPES);
export type ActivityType = z.infer<typeof ActivityType>;
