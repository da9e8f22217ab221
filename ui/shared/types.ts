/**
 * What each tool takes and returns, as the UI sees it: typed from the tools' own zod schemas.
 * The imports are type-only, so nothing of the server reaches the bundle, and a change to a
 * schema breaks the UI's type-check instead of a page.
 */
import type { z } from 'zod';
import type { getCampaignTool } from '../../src/tools/get-campaign.js';
import type { getCreditsTool } from '../../src/tools/get-credits.js';
import type { getInsightsOverviewTool } from '../../src/tools/get-insights-overview.js';
import type { getLeadTool } from '../../src/tools/get-lead.js';
import type { getRecentActivityTool } from '../../src/tools/get-recent-activity.js';
import type { listAccountsTool } from '../../src/tools/list-accounts.js';
import type { listCampaignsTool } from '../../src/tools/list-campaigns.js';
import type { listLeadsTool } from '../../src/tools/list-leads.js';
import type { pauseCampaignTool } from '../../src/tools/pause-campaign.js';
import type { sendMessageTool } from '../../src/tools/send-message.js';
import type { startCampaignTool } from '../../src/tools/start-campaign.js';
import type { updateLeadTool } from '../../src/tools/update-lead.js';
import type { updateLeadsBatchTool } from '../../src/tools/update-leads-batch.js';
import type { deleteLeadsBatchTool } from '../../src/tools/delete-leads-batch.js';
import type { addLeadTool } from '../../src/tools/add-lead.js';
import type { addExclusionsTool, importExclusionsTool, listExclusionsTool, removeExclusionsTool } from '../../src/tools/operator/exclusions.js';
import type { searchLeadsTool } from '../../src/tools/operator/leads.js';
import type { getImportTool, previewImportTool, startImportTool } from '../../src/tools/operator/imports.js';
import type { grantCreditsTool } from '../../src/tools/operator/credits.js';
import type { createCampaignTool } from '../../src/tools/create-campaign.js';
import type { updateCampaignTool } from '../../src/tools/update-campaign.js';
import type { listAgentsTool } from '../../src/tools/list-agents.js';
import type { getAgentTool } from '../../src/tools/get-agent.js';
import type { createAgentTool } from '../../src/tools/create-agent.js';
import type { updateAgentTool } from '../../src/tools/update-agent.js';
import type { previewAgentTool } from '../../src/tools/preview-agent.js';
import type { getAgentStatsTool } from '../../src/tools/get-agent-stats.js';
import type { previewStartCampaignTool } from '../../src/tools/operator/campaigns.js';
import type { getAgentShapeTool, getLeadSequenceTool, getSkipReasonsTool, previewAgentDraftTool } from '../../src/tools/operator/sequences.js';
import type { connectAccountTool } from '../../src/tools/connect-account.js';
import type { updateAccountTool } from '../../src/tools/update-account.js';
import type { listMailboxesTool } from '../../src/tools/list-mailboxes.js';
import type { connectMailboxTool } from '../../src/tools/connect-mailbox.js';
import type { updateMailboxTool } from '../../src/tools/update-mailbox.js';
import type { listDraftsTool } from '../../src/tools/list-drafts.js';
import type { updateDraftsTool } from '../../src/tools/update-drafts.js';
import type { listDraftQueuesTool } from '../../src/tools/operator/drafts.js';
import type { addMemberTool, disableMemberTool, enableMemberTool, listMembersTool, updateMemberTool } from '../../src/tools/operator/members.js';
import type { listAuditEventsTool } from '../../src/tools/list-audit-events.js';
import type { getActivitySeriesTool, markConversationDoneTool, replyConversationTool } from '../../src/tools/operator/conversations.js';
import type { getConversationTool, listConversationsTool, suggestTagTool } from '../../src/tools/conversations.js';
import type { createApiKeyTool, listApiKeysTool, revokeApiKeyTool } from '../../src/tools/operator/keys.js';
import type {
  addWebhookEndpointTool,
  listWebhookDeliveriesTool,
  listWebhookEndpointsTool,
  redeliverWebhookDeliveryTool,
  removeWebhookEndpointTool,
  rotateWebhookSecretTool,
  setWebhookEndpointEnabledTool,
} from '../../src/tools/operator/webhooks.js';

interface AnyTool {
  input: z.ZodType;
  output: z.ZodType;
}
type Io<T extends AnyTool> = { args: z.input<T['input']>; output: z.output<T['output']> };
/** A tool that takes `idempotencyKey`: the pipeline takes it beside the input, as MCP does. */
type IoKeyed<T extends AnyTool> = { args: z.input<T['input']> & { idempotencyKey?: string }; output: z.output<T['output']> };

export type Campaign = z.output<(typeof getCampaignTool)['output']>;
export type CampaignStatus = Campaign['status'];
export type Lead = ListLeadsResult['leads'][number];
export type LeadTag = NonNullable<Lead['tag']>;
export type LeadStage = Lead['stage'];
export type LeadSort = NonNullable<ToolArgs<'list_leads'>['sort']>;
export type Account = ToolOutput<'list_accounts'>['accounts'][number];
export type Mailbox = ToolOutput<'list_mailboxes'>['mailboxes'][number];
export type ConnectMailboxArgs = ToolArgs<'connect_mailbox'>;
export type ActivityEvent = ToolOutput<'get_recent_activity'>['events'][number];
export type ActivityType = ActivityEvent['type'];
export type InsightsOverview = ToolOutput<'get_insights_overview'>;
export type Credits = ToolOutput<'get_credits'>;
export type ListLeadsResult = ToolOutput<'list_leads'>;

export type Agent = ToolOutput<'get_agent'>;
/** A saved step, with its id; an `if` holds its `then` and `else`. */
export type AgentStep = Agent['steps'][number];
export type StepKind = AgentStep['kind'];
/** A step as create_agent and update_agent take it (an id only to keep a saved step). */
export type StepInput = NonNullable<ToolArgs<'update_agent'>['steps']>[number];
export type AgentPreviewResult = ToolOutput<'preview_agent'>;
export type AgentStats = ToolOutput<'get_agent_stats'>;
export type StepStats = AgentStats['steps'][number];
export type SkipReasons = ToolOutput<'get_skip_reasons'>;
export type ApiKey = ToolOutput<'list_api_keys'>['keys'][number];
export type WebhookEndpoint = ToolOutput<'list_webhook_endpoints'>['endpoints'][number];
export type WebhookDelivery = ToolOutput<'list_webhook_deliveries'>['deliveries'][number];
export type DeliveryAttempt = WebhookDelivery['log'][number];
export type ConversationFilter = ToolArgs<'list_conversations'>['filter'];
export type ConversationThread = ToolOutput<'list_conversations'>['conversations'][number];
export type Conversation = ToolOutput<'get_conversation'>;
export type ConversationMessage = Conversation['messages'][number];
export type SenderKind = ConversationMessage['sender'];
export type ActivitySeries = ToolOutput<'get_activity_series'>;

export type ListDraftsResult = ToolOutput<'list_drafts'>;
/**
 * A draft as the queue reads it. `revision` (grows with each change of its words) and
 * `skipReason` (why a draft that can no longer be sent was skipped) are optional here, so the
 * queue still works against a server that does not send them yet: it then sends no revision.
 */
type ServerDraft = ListDraftsResult['drafts'][number];
export type DraftStatus = ServerDraft['status'] | 'skipped';
export type Draft = Omit<ServerDraft, 'status'> & { status: DraftStatus; revision?: number; skipReason?: string | null };
export type DraftKind = Draft['kind'];
/** One update_drafts item, with the revision the reviewer saw. */
export type DraftUpdateItem = ToolArgs<'update_drafts'>['drafts'][number] & { revision?: number };
/** The draft as it stands, in a conflict's error: what the reviewer must see before approving. */
export interface DraftCurrent {
  revision?: number;
  status: DraftStatus;
  text: string;
  subject: string | null;
}
/** One update_drafts result; a conflict over a stale revision carries the current draft. */
export type DraftItemResult = Omit<ToolOutput<'update_drafts'>['results'][number], 'error'> & {
  error?: { code: string; message: string; current?: DraftCurrent };
};
export type UpdateDraftsResult = Omit<ToolOutput<'update_drafts'>, 'results'> & { results: DraftItemResult[] };
/** preview_approve_drafts: what "approve all matching" would approve, per sender and kind. */
export interface ApprovePreview {
  count: number;
  accounts: { accountId: string; name: string | null; count: number }[];
  kinds: { invite: number; message: number; inmail: number; email?: number };
  token: string;
}
export interface ApproveMatchingResult {
  approved: number;
  leftPending: number;
}
export type DraftQueues = ToolOutput<'list_draft_queues'>;

export type ImportPreview = ToolOutput<'preview_import'>;
export type ImportSummary = ImportPreview['summary'];
export type ImportStatus = ToolOutput<'get_import'>;
export type ImportField = NonNullable<ImportPreview['columns'][number]['field']>;
export type RejectedRow = ImportPreview['rows'][number];
export type ImportStop = NonNullable<ImportPreview['stoppedAt']>;
export type GrantResult = ToolOutput<'grant_credits'>;
export type Member = ToolOutput<'list_members'>['members'][number];
export type MemberRole = Member['role'];
export type AuditEvent = ToolOutput<'list_audit_events'>['events'][number];

interface ServerTools {
  get_credits: Io<typeof getCreditsTool>;
  list_accounts: Io<typeof listAccountsTool>;
  get_recent_activity: Io<typeof getRecentActivityTool>;
  get_insights_overview: Io<typeof getInsightsOverviewTool>;
  list_campaigns: Io<typeof listCampaignsTool>;
  get_campaign: Io<typeof getCampaignTool>;
  start_campaign: Io<typeof startCampaignTool>;
  pause_campaign: Io<typeof pauseCampaignTool>;
  list_leads: Io<typeof listLeadsTool>;
  get_lead: Io<typeof getLeadTool>;
  add_lead: Io<typeof addLeadTool>;
  update_lead: Io<typeof updateLeadTool>;
  update_leads_batch: Io<typeof updateLeadsBatchTool>;
  delete_leads_batch: Io<typeof deleteLeadsBatchTool>;
  send_message: Io<typeof sendMessageTool>;
  list_api_keys: Io<typeof listApiKeysTool>;
  create_api_key: Io<typeof createApiKeyTool>;
  revoke_api_key: Io<typeof revokeApiKeyTool>;
  list_webhook_endpoints: Io<typeof listWebhookEndpointsTool>;
  add_webhook_endpoint: Io<typeof addWebhookEndpointTool>;
  remove_webhook_endpoint: Io<typeof removeWebhookEndpointTool>;
  set_webhook_endpoint_enabled: Io<typeof setWebhookEndpointEnabledTool>;
  rotate_webhook_secret: Io<typeof rotateWebhookSecretTool>;
  list_webhook_deliveries: Io<typeof listWebhookDeliveriesTool>;
  redeliver_webhook_delivery: Io<typeof redeliverWebhookDeliveryTool>;
  list_conversations: Io<typeof listConversationsTool>;
  get_conversation: Io<typeof getConversationTool>;
  suggest_tag: Io<typeof suggestTagTool>;
  reply_conversation: IoKeyed<typeof replyConversationTool>;
  mark_conversation_done: Io<typeof markConversationDoneTool>;
  get_activity_series: Io<typeof getActivitySeriesTool>;
  create_campaign: IoKeyed<typeof createCampaignTool>;
  update_campaign: Io<typeof updateCampaignTool>;
  list_agents: Io<typeof listAgentsTool>;
  get_agent: Io<typeof getAgentTool>;
  create_agent: IoKeyed<typeof createAgentTool>;
  update_agent: Io<typeof updateAgentTool>;
  preview_agent: Io<typeof previewAgentTool>;
  get_agent_stats: Io<typeof getAgentStatsTool>;
  get_skip_reasons: Io<typeof getSkipReasonsTool>;
  get_agent_shape: Io<typeof getAgentShapeTool>;
  preview_agent_draft: Io<typeof previewAgentDraftTool>;
  get_lead_sequence: Io<typeof getLeadSequenceTool>;
  preview_start_campaign: Io<typeof previewStartCampaignTool>;
  connect_account: IoKeyed<typeof connectAccountTool>;
  update_account: Io<typeof updateAccountTool>;
  list_mailboxes: Io<typeof listMailboxesTool>;
  connect_mailbox: IoKeyed<typeof connectMailboxTool>;
  update_mailbox: Io<typeof updateMailboxTool>;
  list_exclusions: Io<typeof listExclusionsTool>;
  add_exclusions: Io<typeof addExclusionsTool>;
  remove_exclusions: Io<typeof removeExclusionsTool>;
  import_exclusions: Io<typeof importExclusionsTool>;
  search_leads: Io<typeof searchLeadsTool>;
  preview_import: Io<typeof previewImportTool>;
  start_import: Io<typeof startImportTool>;
  get_import: Io<typeof getImportTool>;
  grant_credits: IoKeyed<typeof grantCreditsTool>;
  list_drafts: Io<typeof listDraftsTool>;
  update_drafts: Io<typeof updateDraftsTool>;
  list_draft_queues: Io<typeof listDraftQueuesTool>;
  list_members: Io<typeof listMembersTool>;
  add_member: Io<typeof addMemberTool>;
  update_member: Io<typeof updateMemberTool>;
  disable_member: Io<typeof disableMemberTool>;
  enable_member: Io<typeof enableMemberTool>;
  list_audit_events: Io<typeof listAuditEventsTool>;
}

/** The operator's bulk approval (issue 34): typed here until the server's tools define them. */
interface BulkApprovalTools {
  preview_approve_drafts: { args: { campaignId?: string }; output: ApprovePreview };
  approve_matching_drafts: { args: { campaignId?: string; token: string }; output: ApproveMatchingResult };
}

export type Tools = ServerTools & BulkApprovalTools;
export type ToolName = keyof Tools;
export type ToolArgs<N extends ToolName> = Tools[N]['args'];
export type ToolOutput<N extends ToolName> = Tools[N]['output'];

/** Every lead tag, checked against the server's enum: a missing or unknown tag fails the type-check. */
const TAGS: Record<LeadTag, true> = {
  'Meeting request': true,
  Interested: true,
  'Information request': true,
  'Not interested': true,
  'Wrong person': true,
  'To be defined': true,
};
export const LEAD_TAGS = Object.keys(TAGS) as LeadTag[];
export const AUTO_EXCLUDE: ReadonlySet<LeadTag> = new Set<LeadTag>(['Not interested', 'Wrong person']);

const SORTS: Record<LeadSort, string> = {
  createdAt: 'Added',
  taggedAt: 'Tagged',
  repliedAt: 'Replied',
  lastInboundMessageAt: 'Last inbound message',
};
export const LEAD_SORT_LABELS = SORTS;
export const LEAD_SORTS = Object.keys(SORTS) as LeadSort[];
