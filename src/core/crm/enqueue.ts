import type { LeadRow } from '../../db/sql/leads.js';
import { campaignStatements } from '../../db/sql/campaigns.js';
import type { Ctx } from '../context.js';
import { newestMessages } from '../conversations/store.js';
import { newSortableId } from '../ids.js';
import type { ActivityType, LeadTag } from '../leads/enums.js';
import type { CrmContactInput } from '../network/crm.js';
import { clean, composeFullName, nameParts } from '../text.js';
import { leadAccountId } from '../webhooks/outbox.js';
import { crmStore, type PushKind } from './store.js';

/*
 * What the CRM is told, decided where the events are recorded: `recordActivity` calls
 * `crmOnActivity` and the tag verb calls `crmOnTagged`, inside the transaction of the event, so
 * a push exists exactly when its event does. Without a `crm` config (ctx.crm absent) both return
 * at once and nothing is queued.
 */

/** The tags that open a deal (once per lead). */
export const DEAL_TAGS: ReadonlySet<string> = new Set<LeadTag>(['Meeting request', 'Interested']);

/** How many of a lead's earlier messages its first contact push carries as notes. */
const HISTORY_MAX = 50;

/** Activity that becomes a note, and how it reads there. */
const NOTE_ACTIVITY: Partial<Record<ActivityType, (text: string | null, channel: string) => string>> = {
  connection_request_sent: (text) => (text ? `LinkedIn invitation sent with the note:\n${text}` : 'LinkedIn invitation sent.'),
  message_sent: (text, channel) => `${channel} message sent:\n${text ?? ''}`.trimEnd(),
  agent_replied: (text, channel) => `${channel} answer sent:\n${text ?? ''}`.trimEnd(),
  cta_sent: (text, channel) => `${channel} call to action sent:\n${text ?? ''}`.trimEnd(),
  reply_received: (text, channel) => `${channel} reply received:\n${text ?? ''}`.trimEnd(),
};

/** A mailbox id (`mbx_…`) is an email's account; anything else is a LinkedIn account. */
const channelOf = (accountId: string | null): string => (accountId?.startsWith('mbx_') ? 'Email' : 'LinkedIn');

export interface NotePayload {
  body: string;
  at: number;
}

export interface DealPayload {
  name: string;
  pipelineId: string | null;
  stageId: string | null;
  ownerId: string | null;
}

export type PushPayload = { kind: 'contact'; data: CrmContactInput } | { kind: 'note'; data: NotePayload } | { kind: 'deal'; data: DealPayload };

/** An invitation, a message or a reply, as `recordActivity` records it: a reply makes the lead a contact; each becomes a note once it is one. */
export function crmOnActivity(
  ctx: Ctx,
  input: { type: ActivityType; at: number; lead: LeadRow; text?: string | null | undefined; accountId: string | null },
): void {
  if (!ctx.crm) return;
  const note = NOTE_ACTIVITY[input.type];
  if (!note) return;
  if (input.type === 'reply_received') {
    if (!ensureContact(ctx, input.lead)) return;
  } else if (!crmStore.contactKnown(ctx.db, input.lead.id)) {
    return;
  }
  queue(ctx, input.lead.id, 'note', { body: note(input.text ?? null, channelOf(input.accountId)), at: input.at });
}

/**
 * An email sent to a contact, or bounced: a note as its history reads (`Email message sent:` and
 * `Email bounced:`, the words as the thread holds them). Email is not activity, so its recorders
 * call this, in the transaction that enters it in the thread; a lead not yet a contact gets it
 * with its history when it becomes one.
 */
export function crmOnEmail(ctx: Ctx, lead: LeadRow, what: 'sent' | 'bounced', text: string, at: number): void {
  if (!ctx.crm || !crmStore.contactKnown(ctx.db, lead.id)) return;
  queue(ctx, lead.id, 'note', { body: `Email ${what === 'sent' ? 'message sent' : 'bounced'}:\n${text}`, at });
}

/** A new tag: the lead becomes (or updates) a contact, the tag a note, and `Meeting request` or `Interested` opens its deal. */
export function crmOnTagged(ctx: Ctx, lead: LeadRow, tag: string, previousTag: string | null): void {
  if (!ctx.crm) return;
  if (!ensureContact(ctx, lead)) return;
  const at = ctx.simClock.now();
  queue(ctx, lead.id, 'note', { body: previousTag ? `Tagged ${tag} (was ${previousTag}).` : `Tagged ${tag}.`, at });
  if (!DEAL_TAGS.has(tag) || crmStore.dealKnown(ctx.db, lead.id)) return;
  const accountId = leadAccountId(ctx, lead);
  queue(ctx, lead.id, 'deal', {
    name: dealName(ctx, lead),
    pipelineId: ctx.crm.pipelineId,
    stageId: ctx.crm.stageId,
    ownerId: accountId ? (ctx.crm.ownerMap[accountId] ?? null) : null,
  });
}

/** `Ada Lovelace (Engines) – Q1 founders`: who, where, and the campaign that found them. */
export function dealName(ctx: Ctx, lead: LeadRow): string {
  const who = composeFullName(lead.fullName, lead.firstName, lead.lastName) ?? lead.email ?? lead.networkUrl ?? lead.id;
  const company = clean(lead.companyName);
  const campaign = campaignStatements(ctx.db).idAndName.get(lead.campaignId)?.name ?? null;
  return `${who}${company ? ` (${company})` : ''}${campaign ? ` – ${campaign}` : ''}`.slice(0, 200);
}

/** The lead's fields a contact is matched by and filled from; null when it has neither profile URL nor email. */
export function contactInput(lead: LeadRow): CrmContactInput | null {
  if (lead.networkUrl === null) return null;
  // A lead given only a full name is still a named contact: its first word and the rest.
  const name = nameParts(lead.fullName, lead.firstName, lead.lastName);
  return {
    email: clean(lead.email),
    networkUrl: lead.networkUrl,
    firstName: name.first,
    lastName: name.last,
    company: clean(lead.companyName),
    title: clean(lead.jobTitle),
  };
}

/**
 * Queues the lead's contact push, or refreshes the one no attempt has taken yet. The first time,
 * the lead's earlier invitation and messages follow it as notes, so the contact arrives with its
 * history. False when the lead cannot be a contact (no profile URL).
 */
function ensureContact(ctx: Ctx, lead: LeadRow): boolean {
  const input = contactInput(lead);
  if (!input) return false;
  const known = crmStore.contactKnown(ctx.db, lead.id);
  const untried = crmStore.untriedContactPush(ctx.db, lead.id);
  if (untried) crmStore.setPayload(ctx.db, untried, JSON.stringify(input), ctx.clock.now());
  else queue(ctx, lead.id, 'contact', input);
  if (!known) queueHistory(ctx, lead);
  return true;
}

function queueHistory(ctx: Ctx, lead: LeadRow): void {
  const notes: NotePayload[] = [];
  if (lead.invitedAt !== null) notes.push({ body: 'LinkedIn invitation sent.', at: lead.invitedAt });
  for (const m of newestMessages(ctx, lead.id, HISTORY_MAX)) {
    const channel = m.channel === 'email' ? 'Email' : 'LinkedIn';
    const what = m.sender === 'mail_server' ? `${channel} bounced` : m.direction === 'inbound' ? `${channel} reply received` : `${channel} message sent`;
    notes.push({ body: `${what}:\n${m.text}`, at: m.at });
  }
  notes.sort((a, b) => a.at - b.at);
  for (const note of notes) queue(ctx, lead.id, 'note', note);
}

function queue(ctx: Ctx, leadId: string, kind: 'contact', data: CrmContactInput): void;
function queue(ctx: Ctx, leadId: string, kind: 'note', data: NotePayload): void;
function queue(ctx: Ctx, leadId: string, kind: 'deal', data: DealPayload): void;
function queue(ctx: Ctx, leadId: string, kind: PushKind, data: unknown): void {
  crmStore.insertPush(ctx.db, { id: newSortableId('crp'), leadId, kind, payload: JSON.stringify(data), now: ctx.clock.now() });
}
