import { KeyScope } from '../auth/scope.js';
import { CREATED_STATUS } from '../campaigns/state-machine.js';
import { z } from 'zod';
import { StepsInput } from '../agents/steps.js';
import { CampaignName, SENDERS_MAX } from '../campaigns/manage.js';
import { AgentName, ConnectionNote, MESSAGES_MAX, placeholderProblems, SequenceMessage } from '../agents/agents.js';
import { AccountName, ConnectionRequestLimit, MessageLimit, PostReactionLimit, ProfileVisitLimit } from '../accounts/manage.js';
import { LEAD_FIELD_MAX } from '../leads/fields.js';
import { ACCOUNT_STATUSES } from '../accounts/list.js';
import { EmailAddress, MAILBOX_STATUSES, ServerInput } from '../mailboxes/mailbox.js';
import { MAILBOX_DAILY_LIMIT_DEFAULT, MAILBOX_DAILY_LIMIT_MAX, MAILBOX_SPACING_DEFAULT_SECONDS } from '../safety/mailbox.js';
import { CampaignApproval, CampaignStatus } from '../campaigns/campaign.js';
import { PATH_ID } from '../ids.js';
import { ActivityType, LeadSource, LeadStage, LeadTag } from '../leads/enums.js';
import { normalizeProfileUrl } from '../leads/url.js';
import { AccountHoursInput, TimeZone } from '../safety/rules.js';
import { SigningSecret, WebhookEndpointInput } from '../webhooks/endpoints.js';

/**
 * The workspace file that `outreach seed` loads (self-hosting.md). Every object is strict,
 * so an unknown key anywhere fails with its path. Every section but `apiKeys` is optional,
 * and so is every field that has a sensible default.
 */
const Id = z.string().regex(PATH_ID, 'must match [A-Za-z0-9_-]{1,64}');
const Count = z.number().int().min(0);
const Timestamp = z.iso.datetime({ offset: true });
const NullableText = z.string().nullable().optional();
/** A lead field an add takes, at most as long as an add allows. */
const LeadText = (field: keyof typeof LEAD_FIELD_MAX) => z.string().max(LEAD_FIELD_MAX[field]).nullable().optional();
const Month = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be YYYY-MM')
  .nullable()
  .optional();
const ProfileUrl = z.string().refine((v) => normalizeProfileUrl(v) !== null, 'must be a personal profile URL (https://www.linkedin.com/in/<slug>)');

export const WorkspaceSection = z.strictObject({
  name: z.string().min(1).default('Workspace'),
  plan: z.string().min(1).default('paid'),
  planId: z.string().min(1).default('growth'),
  planActive: z.boolean().default(true),
  whiteLabelIsolated: z.boolean().default(false),
  blocked: z.boolean().default(false),
});

export const CreditsSection = z.strictObject({
  credits: Count.default(0),
  topUpCredits: Count.default(0),
  lookalikeCredits: Count.default(0),
  lookalikeTopUpCredits: Count.default(0),
});

export const ApiKeyEntry = z.strictObject({
  key: z.string().regex(/^sk_(test|live)_[\x21-\x7e]{24,}$/, 'must be sk_test_ or sk_live_ followed by at least 24 visible characters'),
  name: z.string().min(1).max(100).default('seeded'),
  /** What the key may reach (core/auth/scope.ts); absent, everything. */
  scope: KeyScope.optional(),
});

export const MailboxEntry = z.strictObject({
  id: Id,
  name: z.string().min(1).optional(),
  address: EmailAddress,
  fromName: z.string().min(1).max(120).optional(),
  smtp: ServerInput.optional(),
  imap: ServerInput.optional(),
  dailyLimit: z.number().int().min(1).max(MAILBOX_DAILY_LIMIT_MAX).default(MAILBOX_DAILY_LIMIT_DEFAULT),
  /** Warm the mailbox up from today (off by default for loaded mailboxes: they are not new). */
  warmUp: z.boolean().default(false),
  timeZone: TimeZone.optional(),
  workingHours: AccountHoursInput.optional(),
  spacingSeconds: z.number().int().min(10).max(3600).default(MAILBOX_SPACING_DEFAULT_SECONDS),
  status: z.enum(MAILBOX_STATUSES).default('connected'),
});

export const AccountEntry = z.strictObject({
  id: Id,
  name: AccountName.optional(),
  status: z.enum(ACCOUNT_STATUSES).default('connected'),
  active: z.boolean().default(true),
  hasSalesNavigator: z.boolean().default(false),
  // The bounds connect_account and update_account hold an account to.
  connectionRequestLimit: ConnectionRequestLimit.default(25),
  messageLimit: MessageLimit.default(50),
  profileVisitLimit: ProfileVisitLimit.default(40),
  postReactionLimit: PostReactionLimit.default(30),
  /** Rolling 7-day cap on connection requests; omitted uses the config's (default 100). */
  weeklyConnectionRequestLimit: z.number().int().min(1).max(1000).optional(),
  /** Warm the account up from today (off by default for loaded accounts: they are not new). */
  warmUp: z.boolean().default(false),
  /** The account's time zone and working hours (`"always"` for every hour); omitted uses the config's. */
  timeZone: TimeZone.optional(),
  workingHours: AccountHoursInput.optional(),
  today: z
    .strictObject({
      connectionRequestsSent: Count.default(0),
      connectionRequestsAccepted: Count.default(0),
      messagesSent: Count.default(0),
      profileLookups: Count.default(0),
      searchResults: Count.default(0),
      profileVisits: Count.default(0),
      postReactions: Count.default(0),
    })
    .optional(),
});

/** The fields of create_agent, with its bounds; a message's delay defaults to 24 hours here. */
export const AgentEntry = z
  .strictObject({
    id: Id,
    name: AgentName.optional(),
    accountId: Id.nullable().optional(),
    connectionNote: ConnectionNote.optional(),
    messages: z
      .array(z.strictObject({ text: SequenceMessage.shape.text, delayHours: SequenceMessage.shape.delayHours.default(24) }))
      .max(MESSAGES_MAX)
      .optional(),
    /** The sequence as steps (docs/sequences.md), instead of connectionNote and messages; ids given are kept. */
    steps: StepsInput.optional(),
  })
  .superRefine((agent, issues) => {
    // As create_agent: a placeholder the engine cannot fill is refused where it is written.
    for (const { path, message } of placeholderProblems(agent)) issues.addIssue({ code: 'custom', path, message });
  });

export const WorkExperienceEntry = z.strictObject({
  company: NullableText,
  position: NullableText,
  location: NullableText,
  description: NullableText,
  start: Month,
  end: Month,
});

export const LeadEntry = z.strictObject({
  id: z
    .string()
    .regex(/^lead_[A-Za-z0-9_-]{1,59}$/, 'must be lead_ followed by [A-Za-z0-9_-]')
    .optional(),
  networkUrl: ProfileUrl.nullable().optional(),
  accountId: Id.nullable().optional(),
  firstName: LeadText('firstName'),
  lastName: LeadText('lastName'),
  fullName: LeadText('fullName'),
  jobTitle: LeadText('jobTitle'),
  companyName: LeadText('companyName'),
  companyNetwork: NullableText,
  website: NullableText,
  email: LeadText('email'),
  location: LeadText('location'),
  headline: LeadText('headline'),
  personalization: LeadText('personalization'),
  workExperience: z.array(WorkExperienceEntry).max(10).default([]),
  tag: LeadTag.nullable().default(null),
  stage: LeadStage.default('new'),
  excluded: z.boolean().default(false),
  replied: z.boolean().default(false),
  needsReply: z.boolean().default(false),
  connectionRequestAccepted: z.boolean().default(false),
  messageSent: z.boolean().default(false),
  source: LeadSource.default('manual'),
  createdAt: Timestamp.optional(),
  taggedAt: Timestamp.nullable().optional(),
  repliedAt: Timestamp.nullable().optional(),
  lastInboundMessageAt: Timestamp.nullable().optional(),
});

export const CampaignEntry = z.strictObject({
  id: Id,
  name: CampaignName.optional(),
  status: CampaignStatus.default(CREATED_STATUS.plain),
  assignedTemplateId: Id.nullable().default(null),
  importing: z.boolean().default(false),
  approval: CampaignApproval.default('off'),
  senderAccountIds: z.array(Id).max(SENDERS_MAX).default([]),
  createdAt: Timestamp.optional(),
  updatedAt: Timestamp.optional(),
  stats: z
    .strictObject({
      connectionRequestsSent: Count.default(0),
      connectionRequestsAccepted: Count.default(0),
      messagesSent: Count.default(0),
      repliesReceived: Count.default(0),
    })
    .optional(),
  leads: z.array(LeadEntry).default([]),
});

export const ActivityEntry = z.strictObject({
  id: Id,
  type: ActivityType,
  timestamp: Timestamp,
  leadId: Id,
  campaignId: Id,
  leadName: z.string().nullable().optional(),
  companyName: z.string().nullable().optional(),
  messagePreview: z.string().nullable().optional(),
  handOffReason: z.string().nullable().optional(),
  accountId: Id.nullable().optional(),
  manual: z.boolean().default(false),
});

export const WebhooksSection = z.strictObject({
  /** The workspace's one signing secret (see docs/webhooks.md). */
  secret: SigningSecret.nullable().optional(),
  endpoints: z.array(WebhookEndpointInput).default([]),
});

export const WorkspaceFile = z.strictObject({
  workspace: WorkspaceSection.optional(),
  credits: CreditsSection.optional(),
  apiKeys: z.array(ApiKeyEntry).min(1),
  accounts: z.array(AccountEntry).default([]),
  /** Email mailboxes; one without smtp is simulated (development). */
  mailboxes: z.array(MailboxEntry).default([]),
  agents: z.array(AgentEntry).default([]),
  campaigns: z.array(CampaignEntry).default([]),
  exclusions: z.array(ProfileUrl).default([]),
  activity: z.array(ActivityEntry).default([]),
  webhooks: WebhooksSection.optional(),
});
export type WorkspaceFile = z.infer<typeof WorkspaceFile>;

/** A workspace without keys: what the demo builds in code (it mints its key separately). */
export const WorkspaceContent = WorkspaceFile.extend({ apiKeys: z.array(ApiKeyEntry).default([]) });
export type WorkspaceContent = z.infer<typeof WorkspaceContent>;
export type WorkspaceFileInput = z.input<typeof WorkspaceFile>;
