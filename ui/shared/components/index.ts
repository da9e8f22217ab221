/** The components the dashboard and the MCP App views share. Names are stable. */
export { ActivityTimeline, type ActivityTimelineProps } from './ActivityTimeline.js';
export { CampaignCard, CampaignFunnel, campaignNextStep, type CampaignCardProps } from './CampaignCard.js';
export { EmptyState } from './EmptyState.js';
export { ErrorNote, Loading } from './Feedback.js';
export { ActivityChart, InsightsPanel, TopCampaignsChart, type InsightsPanelProps } from './InsightsPanel.js';
export { LeadsTable, leadsArgs, type LeadFilter, type LeadsTableProps } from './LeadsTable.js';
export { Untrusted, UntrustedBlock } from './Untrusted.js';
