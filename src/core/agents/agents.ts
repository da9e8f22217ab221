// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { z } from 'zod';
import { transaction } from '../../db/tx.js';
import type { Ctx } from '../context.js';
import { decodeCursor, encodeCursor, invalidCursor, pageOf } from '../cursor.js';
import { ApiError, validationError } from '../errors.js';
import { newId, PATH_ID } from '../ids.js';
import { findAccount } from '../accounts/resolve.js';
import { reachesCampaign } from '../auth/scope.js';
import { kindOf } from '../steps/registry.js';
import { PLACEHOLDERS, renderMessage, renderNote, renderTemplate, unknownPlaceholders, fitTo, type RenderLead } from './render.js';
import {
  AgentStep,
  buildSteps,
  knownSteps,
  legacySteps,
  mainPath,
  parseStoredSteps,
  StepsInput,
  StepsUpdate,
  VARIANT_LETTERS,
  variantCount,
  variantText,
  walkSteps,
  type Step,
  type StepInput,
  type StepKind,
} from './steps.js';
import { noteAuditTarget } from '../audit/current.js';
import { type AgentRow, agentIdExists, agentPageRows, agentRowById, insertAgentRow, updateAgentRow } from './store.js';
import { leadStatements } from '../../db/sql/leads.js';

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
  steps: StepsInput.optional(),
};
export const CreateAgentInput = z.strictObject(CreateAgentFields);
export type CreateAgentInput = z.output<typeof CreateAgentInput>;

export const UpdateAgentFields = {
  name: AgentName.optional(),
  accountId: AgentAccountId.optional(),
  connectionNote: ConnectionNote.optional(),
  messages: SequenceMessages.optional(),
  steps: StepsUpdate.optional(),
};
export const UpdateAgentInput = z.strictObject(UpdateAgentFields);
export type UpdateAgentInput = z.output<typeof UpdateAgentInput>;

export const Agent = z.object({
  id: z.string(),
  name: z.string(),
  /** Null only for an agent loaded from a workspace file without an account. */
  accountId: z.string().nullable(),
  /** For every agent: the first invite's note, and the messages on the path where every `if` holds. */
  connectionNote: z.string().nullable(),
  messages: z.array(z.object({ text: z.string(), delayHours: z.number().int() })),
  /** For every agent: an agent written with connectionNote and messages reads as steps. */
  steps: z.array(AgentStep),
});
export type Agent = z.infer<typeof Agent>;

/** One step of a preview: its texts rendered for the lead (A first), for the steps that carry text. */
export const PreviewStep = z.object({
  stepId: z.string(),
  kind: z.string(),
  path: z.string(),
  subject: z.string().optional(),
  /** An email's variants each carry their own subject (a variant without one takes the step's). */
  variants: z.array(z.object({ variant: z.string(), text: z.string().nullable(), subject: z.string().optional() })).optional(),
});

export const AgentPreview = z.object({
  agentId: z.string(),
  leadId: z.string(),
  connectionNote: z.string().nullable(),
  messages: z.array(z.string()),
  /** Every step in order, with its path; invites, messages and InMails with their texts for this lead. */
  steps: z.array(PreviewStep),
});
export type AgentPreview = z.infer<typeof AgentPreview>;

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

/** The invitation timeout the engine runs with, in hours: the `if accepted` of a legacy agent waits this long. */
export const invitationTimeoutHours = (ctx: Pick<Ctx, 'invitationTimeoutMs'>): number => (ctx.invitationTimeoutMs ?? DEFAULT_INVITATION_TIMEOUT_MS) / 3_600_000;
const DEFAULT_INVITATION_TIMEOUT_MS = 21 * 86_400_000;

/** An agent's steps: the stored ones, or for an agent written with connectionNote and messages, those read as steps. */
export function stepsOf(row: AgentRow, timeoutHours: number): Step[] {
  if (row.steps !== null) return parseStoredSteps(row.steps);
  return legacySteps(row.id, { connectionNote: row.connectionNote, messages: parseMessages(row.messages) }, timeoutHours);
}

/** Whether the agent was written with steps (rather than connectionNote and messages). */
export const writtenWithSteps = (row: Pick<AgentRow, 'steps'>): boolean => row.steps !== null;

export function toAgent(row: AgentRow, timeoutHours: number): Agent {
  const steps = stepsOf(row, timeoutHours);
  const legacy = row.steps === null ? { connectionNote: row.connectionNote, messages: parseMessages(row.messages) } : mainPath(steps);
  return { id: row.id, name: row.name, accountId: row.accountId, connectionNote: legacy.connectionNote, messages: [...legacy.messages], steps };
}

export const agentNotFound = (id: string, field?: string): ApiError =>
  new ApiError('not_found', `Agent ${id} not found. Call list_agents (GET /agents) for valid ids.`, field ? { fields: [field] } : {});

export function requireAgentRow(ctx: Ctx, id: string, field?: string): AgentRow {
  const row = agentRowById(ctx, id);
  if (!row) throw agentNotFound(id, field);
  return row;
}

export const getAgent = (ctx: Ctx, id: string): Agent => toAgent(requireAgentRow(ctx, id), invitationTimeoutHours(ctx));

/**
 * The texts of a note and its messages that hold a placeholder the engine cannot fill: each one's
 * path and what is wrong (`unknown placeholder "{{x}}"`). create_agent and the workspace file
 * both refuse them.
 */
export function placeholderProblems(input: {
  connectionNote?: string | null | undefined;
  messages?: readonly { text: string }[] | undefined;
}): { path: (string | number)[]; message: string }[] {
  const texts: [(string | number)[], string][] = [];
  if (typeof input.connectionNote === 'string') texts.push([['connectionNote'], input.connectionNote]);
  for (const [i, m] of (input.messages ?? []).entries()) texts.push([['messages', i, 'text'], m.text]);
  return texts.flatMap(([path, text]) => {
    const bad = unknownPlaceholders(text);
    return bad.length ? [{ path, message: `unknown placeholder ${bad.map((b) => `"${b}"`).join(', ')}` }] : [];
  });
}

/** Every unknown placeholder is a 400 naming the field it is in: `connectionNote` or `messages[2].text`. */
function checkPlaceholders(input: Parameters<typeof placeholderProblems>[0]): void {
  const problem = placeholderProblems(input)[0];
  if (!problem) return;
  const [name, index, leaf] = problem.path;
  const field = index === undefined ? String(name) : `${name}[${index}].${leaf}`;
  throw validationError(`${field}: ${problem.message}. ${PLACEHOLDER_HINT}`, [field]);
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

/** Steps and the older fields describe the same sequence: one request gives one or the other. */
function refuseBothShapes(input: { steps?: unknown; connectionNote?: unknown; messages?: unknown }): void {
  if (input.steps !== undefined && (input.connectionNote !== undefined || input.messages !== undefined)) {
    throw validationError(
      'steps: give either steps or connectionNote and messages, not both. steps can say everything the other two say (an invite, then messages after waits).',
      ['steps'],
    );
  }
}

/**
 * The columns a sequence written as steps is stored in. connectionNote and messages keep the
 * main path, so what reads them (the engine before the step runner) follows that path.
 */
export function stepColumns(steps: Step[]): Pick<AgentRow, 'steps' | 'connectionNote' | 'messages'> {
  const main = mainPath(steps);
  return { steps: JSON.stringify(steps), connectionNote: main.connectionNote, messages: JSON.stringify(main.messages) };
}

export function createAgent(ctx: Ctx, input: CreateAgentInput): Agent {
  refuseBothShapes(input);
  checkPlaceholders(input);
  const steps = input.steps === undefined ? null : buildSteps(input.steps, null);
  return transaction(ctx.db, () => {
    requireAgentAccount(ctx, input.accountId);
    const row: AgentRow = {
      id: newId('tpl'),
      name: input.name,
      accountId: input.accountId,
      connectionNote: noteValue(input.connectionNote),
      messages: JSON.stringify(input.messages ?? []),
      createdAt: ctx.clock.now(),
      steps: null,
      ...(steps ? stepColumns(steps) : {}),
    };
    insertAgentRow(ctx, row);
    noteAuditTarget(row.id);
    return toAgent(row, invitationTimeoutHours(ctx));
  });
}

/**
 * Each given field replaces the old value whole. Leads part-way through the sequence continue
 * at their step: a step sent back with its id keeps it (an agent written with connectionNote and
 * messages keeps its derived ids, which follow each message's position). An agent written with
 * steps changes through steps: its connectionNote and messages are only views of them.
 */
export function updateAgent(ctx: Ctx, id: string, input: UpdateAgentInput): Agent {
  const given = (['name', 'accountId', 'connectionNote', 'messages', 'steps'] as const).filter((k) => input[k] !== undefined);
  if (given.length === 0) {
    throw validationError('Give at least one of name, accountId, connectionNote, messages and steps.', [
      'name',
      'accountId',
      'connectionNote',
      'messages',
      'steps',
    ]);
  }
  refuseBothShapes(input);
  checkPlaceholders(input);
  const timeout = invitationTimeoutHours(ctx);
  return transaction(ctx.db, () => {
    const row = requireAgentRow(ctx, id);
    if (input.accountId !== undefined) requireAgentAccount(ctx, input.accountId);
    const set: Partial<AgentRow> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.accountId !== undefined) set.accountId = input.accountId;
    if (input.steps !== undefined) Object.assign(set, stepColumns(buildSteps(input.steps, knownSteps(stepsOf(row, timeout)))));
    else if (writtenWithSteps(row) && (input.connectionNote !== undefined || input.messages !== undefined)) {
      const field = input.connectionNote !== undefined ? 'connectionNote' : 'messages';
      throw validationError(
        `${field}: agent ${id} is written with steps, and its connectionNote and messages are read from them. Send steps instead (get_agent returns them with their ids).`,
        [field],
      );
    } else {
      if (input.connectionNote !== undefined) set.connectionNote = noteValue(input.connectionNote);
      if (input.messages !== undefined) set.messages = JSON.stringify(input.messages);
    }
    updateAgentRow(ctx, id, set);
    return toAgent(requireAgentRow(ctx, id), timeout);
  });
}

export interface ListAgentsInput {
  limit: number;
  cursor?: string | undefined;
}

const SCOPE = 'agents';

/** In the order they were created (id breaks ties), like accounts. */
export function listAgents(ctx: Ctx, secret: string, input: ListAgentsInput): { agents: Agent[]; nextCursor: string | null } {
  let after: { createdAt: number; id: string } | undefined;
  if (input.cursor !== undefined) {
    const [at, id] = decodeCursor(secret, SCOPE, input.cursor);
    if (typeof at !== 'number' || typeof id !== 'string' || !agentIdExists(ctx, id)) throw invalidCursor();
    after = { createdAt: at, id };
  }
  const rows = agentPageRows(ctx, after, input.limit + 1);
  const page = pageOf(rows, input.limit, (last) => encodeCursor(secret, SCOPE, [last.createdAt, last.id]));
  const timeout = invitationTimeoutHours(ctx);
  return { agents: page.items.map((row) => toAgent(row, timeout)), nextCursor: page.nextCursor };
}

/**
 * The exact texts one lead of any campaign would receive from this agent. A key held to some
 * campaigns previews only their leads: another campaign's lead is absent to it, as everywhere.
 */
export function previewAgent(ctx: Ctx, agentId: string, leadId: string): AgentPreview {
  const agent = toAgent(requireAgentRow(ctx, agentId), invitationTimeoutHours(ctx));
  return previewFor(agent, previewLead(ctx, leadId), leadId);
}

/** The lead a preview renders for; not_found for an unknown one and for one of a campaign the call does not reach. */
function previewLead(ctx: Ctx, leadId: string): RenderLead {
  const lead = leadStatements(ctx.db).byId.get(leadId);
  if (!lead || !reachesCampaign(ctx, lead.campaignId)) {
    throw new ApiError('not_found', `Lead ${leadId} not found. Use a lead id from list_leads.`, { fields: ['leadId'] });
  }
  return lead;
}

/**
 * The texts one lead would receive from a sequence not saved yet (the dashboard's live preview
 * while an agent is edited or created): the steps are checked as a save would check them, and a
 * step's `path` names it, since new steps have no id until they are saved. Writes nothing.
 */
export function previewSteps(ctx: Ctx, input: { agentId?: string | undefined; leadId: string; steps: StepInput[] }): AgentPreview {
  const steps = buildSteps(input.steps, null);
  const lead = previewLead(ctx, input.leadId);
  const main = mainPath(steps);
  return previewFor({ id: input.agentId ?? '', connectionNote: main.connectionNote, messages: [...main.messages], steps }, lead, input.leadId);
}

/**
 * Shared with the dashboard's live preview of an unsaved agent. `connectionNote` and `messages`
 * render the main path, as before; `steps` renders every step, each variant of an invite or
 * message, and an InMail's subject and text.
 */
export function previewFor(agent: Pick<Agent, 'id' | 'connectionNote' | 'messages'> & { steps?: Step[] }, lead: RenderLead, leadId: string): AgentPreview {
  return {
    agentId: agent.id,
    leadId,
    connectionNote: renderNote(agent.connectionNote, lead),
    messages: agent.messages.map((m) => renderMessage(m.text, lead)),
    steps: walkSteps(agent.steps ?? []).map(({ step, path }) => previewStep(step, path, lead)),
  };
}

function previewStep(step: Step, path: string, lead: RenderLead): z.infer<typeof PreviewStep> {
  const base = { stepId: step.id, kind: step.kind as StepKind, path };
  if (step.kind === 'invite' || step.kind === 'message') {
    const variants = VARIANT_LETTERS.slice(0, variantCount(step)).map((variant) => {
      const text = variantText(step, variant);
      return { variant, text: step.kind === 'invite' ? renderNote(text, lead) : renderMessage(text ?? '', lead) };
    });
    return { ...base, variants };
  }
  if (step.kind === 'inmail') {
    return { ...base, subject: fitTo(renderTemplate(step.subject, lead), 200), variants: [{ variant: 'A', text: renderMessage(step.text, lead) }] };
  }
  if (step.kind === 'email') {
    const letters = VARIANT_LETTERS.slice(0, variantCount(step));
    const words = letters.map((variant) => kindOf(step).words?.(step, lead, variant));
    const variants = letters.map((variant, i) => {
      const w = words[i];
      return { variant, text: w?.text ?? '', ...(w?.subject ? { subject: w.subject } : {}) };
    });
    // The step's subject is variant A's, rendered once with the rest.
    return { ...base, subject: words[0]?.subject ?? undefined, variants };
  }
  return base;
}
