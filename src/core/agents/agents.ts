import { and, asc, eq, gt, or } from 'drizzle-orm';
import { z } from 'zod';
import { agents, leads } from '../../db/schema.js';
import { countRows, transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ApiError, validationError } from '../errors.js';
import { newId, PATH_ID } from '../ids.js';
import { findAccount } from '../accounts/resolve.js';
import { PLACEHOLDERS, renderMessage, renderNote, unknownPlaceholders, type RenderLead } from './render.js';

export const AGENT_NAME_MAX = 120;
export const CONNECTION_NOTE_MAX = 300;
export const MESSAGE_TEXT_MAX = 8000;
export const MESSAGES_MAX = 10;
export const DELAY_HOURS_MAX = 720;

const PLACEHOLDER_HINT = `Placeholders: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}, optionally with a fallback ({{firstName|there}}).`;

export const AgentName = z.string().trim().min(1, 'must not be blank').max(AGENT_NAME_MAX).describe(`Agent name, 1..${AGENT_NAME_MAX} characters.`);
export const AgentAccountId = z.string().regex(PATH_ID, 'must be an account id').describe('The sending account, from list_accounts.');
export const ConnectionNote = z
  .string()
  .max(CONNECTION_NOTE_MAX)
  .nullable()
  .describe(`Invitation note, at most ${CONNECTION_NOTE_MAX} characters, or null to invite without a note. ${PLACEHOLDER_HINT}`);
export const SequenceMessage = z.strictObject({
  text: z.string().min(1).max(MESSAGE_TEXT_MAX).describe(`Message text, 1..${MESSAGE_TEXT_MAX} characters; placeholders as in connectionNote.`),
  delayHours: z
    .number()
    .int()
    .min(0)
    .max(DELAY_HOURS_MAX)
    .describe(`Hours to wait after the previous step (acceptance for the first message), 0..${DELAY_HOURS_MAX}.`),
});
export const SequenceMessages = z.array(SequenceMessage).max(MESSAGES_MAX).describe(`The follow-up messages, 0..${MESSAGES_MAX}, in order.`);

/** create_agent's fields, shared by the tool and the CLI's `--file`. */
export const CreateAgentFields = {
  name: AgentName,
  accountId: AgentAccountId,
  connectionNote: ConnectionNote.optional(),
  messages: SequenceMessages.optional(),
};
export const CreateAgentInput = z.strictObject(CreateAgentFields);
export type CreateAgentInput = z.output<typeof CreateAgentInput>;

export const UpdateAgentFields = {
  name: AgentName.optional(),
  accountId: AgentAccountId.optional(),
  connectionNote: ConnectionNote.optional(),
  messages: SequenceMessages.optional(),
};
export const UpdateAgentInput = z.strictObject(UpdateAgentFields);
export type UpdateAgentInput = z.output<typeof UpdateAgentInput>;

export const Agent = z.object({
  id: z.string(),
  name: z.string(),
  /** Null only for an agent loaded from a workspace file without an account. */
  accountId: z.string().nullable(),
  connectionNote: z.string().nullable(),
  messages: z.array(z.object({ text: z.string(), delayHours: z.number().int() })),
});
export type Agent = z.infer<typeof Agent>;

export const AgentPreview = z.object({
  agentId: z.string(),
  leadId: z.string(),
  connectionNote: z.string().nullable(),
  messages: z.array(z.string()),
});
export type AgentPreview = z.infer<typeof AgentPreview>;

type AgentRow = typeof agents.$inferSelect;

function parseMessages(json: string): Agent['messages'] {
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return [];
    return value.map((m: { text?: unknown; delayHours?: unknown }) => ({
      text: typeof m.text === 'string' ? m.text : '',
      delayHours: typeof m.delayHours === 'number' ? Math.round(m.delayHours) : 0,
    }));
  } catch {
    return [];
  }
}

export const toAgent = (row: AgentRow): Agent => ({
  id: row.id,
  name: row.name,
  accountId: row.accountId,
  connectionNote: row.connectionNote,
  messages: parseMessages(row.messages),
});

export const agentNotFound = (id: string, field?: string): ApiError =>
  new ApiError('not_found', `Agent ${id} not found. Call list_agents (GET /agents) for valid ids.`, field ? { fields: [field] } : {});

export function findAgentRow(ctx: Ctx, id: string): AgentRow | undefined {
  return ctx.db.select().from(agents).where(eq(agents.id, id)).get();
}

export function requireAgentRow(ctx: Ctx, id: string, field?: string): AgentRow {
  const row = findAgentRow(ctx, id);
  if (!row) throw agentNotFound(id, field);
  return row;
}

export const getAgent = (ctx: Ctx, id: string): Agent => toAgent(requireAgentRow(ctx, id));

/** Every unknown placeholder is a 400 naming the field it is in: `connectionNote` or `messages[2].text`. */
function checkPlaceholders(input: { connectionNote?: string | null | undefined; messages?: readonly { text: string }[] | undefined }): void {
  const texts: [string, string][] = [];
  if (typeof input.connectionNote === 'string') texts.push(['connectionNote', input.connectionNote]);
  for (const [i, m] of (input.messages ?? []).entries()) texts.push([`messages[${i}].text`, m.text]);
  for (const [field, text] of texts) {
    const bad = unknownPlaceholders(text);
    if (bad.length) throw validationError(`${field}: unknown placeholder ${bad.map((b) => `"${b}"`).join(', ')}. ${PLACEHOLDER_HINT}`, [field]);
  }
}

function requireAgentAccount(ctx: Ctx, accountId: string): void {
  if (!findAccount(ctx, accountId)) {
    throw new ApiError('not_found', `Account ${accountId} not found. Call list_accounts (GET /accounts) for valid ids, or connect_account first.`, {
      fields: ['accountId'],
    });
  }
}

/** A blank note means no note: the invitation goes without one rather than with whitespace. */
const noteValue = (note: string | null | undefined): string | null => (note === undefined || note === null || note.trim() === '' ? null : note);

export function createAgent(ctx: Ctx, input: CreateAgentInput): Agent {
  checkPlaceholders(input);
  return transaction(ctx.db, () => {
    requireAgentAccount(ctx, input.accountId);
    const row: AgentRow = {
      id: newId('tpl'),
      name: input.name,
      accountId: input.accountId,
      connectionNote: noteValue(input.connectionNote),
      messages: JSON.stringify(input.messages ?? []),
      createdAt: ctx.clock.now(),
    };
    ctx.db.insert(agents).values(row).run();
    return toAgent(row);
  });
}

/**
 * Each given field replaces the old value whole. Leads part-way through the sequence keep
 * their step counter, so they continue at their next step of the new sequence.
 */
export function updateAgent(ctx: Ctx, id: string, input: UpdateAgentInput): Agent {
  if (input.name === undefined && input.accountId === undefined && input.connectionNote === undefined && input.messages === undefined) {
    throw validationError('Give at least one of name, accountId, connectionNote and messages.', ['name', 'accountId', 'connectionNote', 'messages']);
  }
  checkPlaceholders(input);
  return transaction(ctx.db, () => {
    requireAgentRow(ctx, id);
    if (input.accountId !== undefined) requireAgentAccount(ctx, input.accountId);
    const set: Partial<AgentRow> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.accountId !== undefined) set.accountId = input.accountId;
    if (input.connectionNote !== undefined) set.connectionNote = noteValue(input.connectionNote);
    if (input.messages !== undefined) set.messages = JSON.stringify(input.messages);
    ctx.db.update(agents).set(set).where(eq(agents.id, id)).run();
    return toAgent(requireAgentRow(ctx, id));
  });
}

export interface ListAgentsInput {
  limit: number;
  cursor?: string | undefined;
}

const SCOPE = 'agents';

/** In the order they were created (id breaks ties), like accounts. */
export function listAgents(ctx: Ctx, secret: string, input: ListAgentsInput): { agents: Agent[]; nextCursor: string | null } {
  const conds = [];
  if (input.cursor !== undefined) {
    const [at, id] = decodeCursor(secret, SCOPE, input.cursor);
    if (typeof at !== 'number' || typeof id !== 'string' || !countRows(ctx.db, agents, eq(agents.id, id))) throw invalidCursor();
    conds.push(or(gt(agents.createdAt, at), and(eq(agents.createdAt, at), gt(agents.id, id))));
  }
  const rows = ctx.db
    .select()
    .from(agents)
    .where(and(...conds))
    .orderBy(asc(agents.createdAt), asc(agents.id))
    .limit(input.limit + 1)
    .all();
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, SCOPE, [last.createdAt, last.id]));
  return { agents: page.items.map(toAgent), nextCursor: page.nextCursor };
}

/** The exact texts one lead of any campaign would receive from this agent. */
export function previewAgent(ctx: Ctx, agentId: string, leadId: string): AgentPreview {
  const agent = toAgent(requireAgentRow(ctx, agentId));
  const lead = ctx.db.select().from(leads).where(eq(leads.id, leadId)).get();
  if (!lead) throw new ApiError('not_found', `Lead ${leadId} not found. Use a lead id from list_leads.`, { fields: ['leadId'] });
  return previewFor(agent, lead, leadId);
}

/** Shared with the dashboard's live preview of an unsaved agent. */
export function previewFor(agent: Pick<Agent, 'id' | 'connectionNote' | 'messages'>, lead: RenderLead, leadId: string): AgentPreview {
  return {
    agentId: agent.id,
    leadId,
    connectionNote: renderNote(agent.connectionNote, lead),
    messages: agent.messages.map((m) => renderMessage(m.text, lead)),
  };
}
