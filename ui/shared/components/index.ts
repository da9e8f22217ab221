/** The components the dashboard and the MCP App views share. Names are stable. */
export { ActivityTimeline, type ActivityTimelineProps } from './ActivityTimeline.js';
export { CampaignCard, CampaignFunnel, type CampaignCardProps } from './CampaignCard.js';
export { ErrorNote, Loading } from './Feedback.js';
export { ActivityChart, InsightsPanel, TopCampaignsChart, type InsightsPanelProps } from './InsightsPanel.js';
export { LeadsTable, leadsArgs, type LeadFilter, type LeadsTableProps } from './LeadsTable.js';
