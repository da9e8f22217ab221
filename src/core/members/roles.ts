/**
 * Who may do what in the dashboard: the one map of roles to tools. The pipeline's role stage
 * (src/tools/pipeline.ts) asks `roleAllows` on every dashboard call; the dashboard hides what a
 * role cannot use from the same answer (`toolsForRole`), so the two cannot disagree.
 */
export const ROLES = ['owner', 'admin', 'operator', 'reviewer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What a tool touches. Every tool the dashboard can call is named here (a test holds the list whole). */
export type Area =
  | 'overview'
  | 'campaigns'
  | 'agents'
  | 'leads'
  | 'imports'
  | 'exclusions'
  | 'network'
  | 'inbox'
  | 'messages'
  | 'drafts'
  | 'accounts'
  | 'keys'
  | 'webhooks'
  | 'credits'
  | 'members'
  | 'audit';

export const TOOL_AREAS: Readonly<Record<string, Area>> = {
  get_credits: 'credits',
  grant_credits: 'credits',
  list_accounts: 'accounts',
  connect_account: 'accounts',
  update_account: 'accounts',
  // Mailboxes are the email channel's senders, kept with the LinkedIn accounts.
  list_mailboxes: 'accounts',
  connect_mailbox: 'accounts',
  update_mailbox: 'accounts',
  get_recent_activity: 'overview',
  get_insights_overview: 'overview',
  get_activity_series: 'overview',
  list_campaigns: 'campaigns',
  get_campaign: 'campaigns',
  start_campaign: 'campaigns',
  pause_campaign: 'campaigns',
  create_campaign: 'campaigns',
  update_campaign: 'campaigns',
  create_lookalike_campaign: 'campaigns',
  preview_start_campaign: 'campaigns',
  list_agents: 'agents',
  get_agent: 'agents',
  create_agent: 'agents',
  update_agent: 'agents',
  preview_agent: 'agents',
  preview_agent_draft: 'agents',
  get_agent_stats: 'agents',
  get_agent_shape: 'agents',
  get_skip_reasons: 'agents',
  list_leads: 'leads',
  get_lead: 'leads',
  add_lead: 'leads',
  add_leads_batch: 'leads',
  update_lead: 'leads',
  update_leads_batch: 'leads',
  delete_leads_batch: 'leads',
  search_leads: 'leads',
  get_lead_sequence: 'leads',
  send_message: 'messages',
  lookup_profile: 'network',
  search_linkedin: 'network',
  preview_import: 'imports',
  start_import: 'imports',
  get_import: 'imports',
  list_exclusions: 'exclusions',
  add_exclusions: 'exclusions',
  remove_exclusions: 'exclusions',
  import_exclusions: 'exclusions',
  list_conversations: 'inbox',
  get_conversation: 'inbox',
  reply_conversation: 'messages',
  mark_conversation_done: 'inbox',
  suggest_tag: 'leads',
  list_drafts: 'drafts',
  update_drafts: 'drafts',
  list_draft_queues: 'drafts',
  preview_approve_drafts: 'drafts',
  approve_matching_drafts: 'drafts',
  list_api_keys: 'keys',
  create_api_key: 'keys',
  revoke_api_key: 'keys',
  list_webhook_endpoints: 'webhooks',
  add_webhook_endpoint: 'webhooks',
  remove_webhook_endpoint: 'webhooks',
  set_webhook_endpoint_enabled: 'webhooks',
  rotate_webhook_secret: 'webhooks',
  list_webhook_deliveries: 'webhooks',
  redeliver_webhook_delivery: 'webhooks',
  list_members: 'members',
  add_member: 'members',
  update_member: 'members',
  disable_member: 'members',
  enable_member: 'members',
  list_audit_events: 'audit',
};

const AREAS = new Set<Area>(Object.values(TOOL_AREAS));
const every = (...except: Area[]): ReadonlySet<Area> => new Set([...AREAS].filter((a) => !except.includes(a)));

/**
 * Each role's reads and writes, by area:
 * - owner: everything;
 * - admin: everything but the members;
 * - operator: reads what the dashboard shows (not members nor the audit trail), and runs
 *   campaigns, agents, leads, imports, exclusions, the inbox and drafts;
 * - reviewer: the Drafts queue and the inbox, with the campaign, account and lead names those
 *   pages show; approves, rejects and edits drafts and marks conversations done. Words to a
 *   lead go out only through a draft: no direct message or inbox reply (area `messages`);
 * - viewer: reads what an operator reads, changes nothing.
 */
const GRANTS: Readonly<Record<Role, { read: ReadonlySet<Area>; write: ReadonlySet<Area> }>> = {
  owner: { read: every(), write: every() },
  admin: { read: every('members'), write: every('members') },
  operator: {
    read: every('members', 'audit'),
    write: new Set<Area>(['campaigns', 'agents', 'leads', 'imports', 'exclusions', 'network', 'inbox', 'messages', 'drafts']),
  },
  reviewer: { read: new Set<Area>(['drafts', 'inbox', 'messages']), write: new Set<Area>(['drafts', 'inbox']) },
  viewer: { read: every('members', 'audit'), write: new Set() },
};

/** Reads a reviewer's two pages make beyond their own areas: names for filters and senders, and the lead list the inbox links. */
const REVIEWER_READS = new Set(['list_campaigns', 'list_accounts', 'list_leads']);

export interface ToolRef {
  name: string;
  /** The tool changes nothing (its readOnlyHint). */
  readOnly: boolean;
}

/** Whether a member of this role may call this tool. A tool named nowhere is the owner's alone. */
export function roleAllows(role: Role, tool: ToolRef): boolean {
  if (role === 'owner') return true;
  const area = TOOL_AREAS[tool.name];
  if (area === undefined) return false;
  if (role === 'reviewer' && tool.readOnly && REVIEWER_READS.has(tool.name)) return true;
  const grant = GRANTS[role];
  return tool.readOnly ? grant.read.has(area) : grant.write.has(area);
}

/** The tools of `all` a role may call, in their order: what the dashboard's session lists. */
export const toolsForRole = <T extends ToolRef>(role: Role, all: readonly T[]): T[] => all.filter((t) => roleAllows(role, t));

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);
