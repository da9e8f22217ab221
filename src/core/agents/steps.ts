// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { validationError } from '../errors.js';
import { newId } from '../ids.js';
import { type ActionKind, variantOf, type VariantLetter } from '../steps/kind.js';
import { ACTION_KINDS, type ActionKindName, type ActionStep, actionKind, kindOf } from '../steps/registry.js';
import type { NestingRule } from '../validation.js';
import { PLACEHOLDERS, unknownPlaceholders } from './render.js';
import { LEAD_TAGS, type LeadTag } from '../leads/enums.js';

/**
 * An agent's sequence as steps (docs/sequences.md): the kinds, their shape rules, their ids,
 * and how the older shape (`connectionNote` and `messages`) reads as steps. Pure: no database.
 */

export const STEPS_MAX = 25;
export const STEP_DEPTH_MAX = 3;
export { NOTE_MAX, SUBJECT_MAX, TEXT_MAX, VARIANT_LETTERS, VARIANTS_MAX, type VariantLetter } from '../steps/kind.js';
export const WAIT_HOURS_MAX = 720;
export const WITHIN_HOURS_MAX = 2160;

/** The kinds that reach the network (one module each, src/core/steps/), then the sequence's own: `wait` and `if`. */
export const STEP_KINDS = [...ACTION_KINDS.map((k) => k.kind), 'wait', 'if'] as [...ActionKindName[], 'wait', 'if'];
export type StepKind = ActionKindName | 'wait' | 'if';
/**
 * What an `if` waits for: the invitation accepted, a reply (on either channel), a reply to one of
 * our emails, one of our emails bounced, or a person (or the assistant) giving the lead one of
 * `tags` (the confirmed tag; a triage suggestion alone does not count).
 */
export const CONDITIONS = ['accepted', 'replied', 'email_replied', 'email_bounced', 'tagged'] as const;
export type Condition = (typeof CONDITIONS)[number];
const CONDITION_HELP =
  'accepted: the invitation was accepted; replied: the lead replied; email_replied: to an email; email_bounced: an email bounced; tagged: the lead was given one of tags.';

const STEP_ID = /^stp_[A-Za-z0-9]{1,40}$/;

const StepId = z.string().regex(STEP_ID, 'must be a step id (stp_…)').describe('Omit for a new step; send back to keep a step.');

/*
 * Input shapes. Descriptions stay short: the steps array's own description carries the rules
 * and an example, and is what a model reads first. Each kind that reaches the network gives
 * its own (src/core/steps/); `wait` and `if` are the sequence's.
 */
const ActionIns = ACTION_KINDS.map((k) => k.input({ z, id: StepId.optional() }));
const WaitIn = z.strictObject({
  id: StepId.optional(),
  kind: z.literal('wait'),
  hours: z.number().int().min(1).max(WAIT_HOURS_MAX).describe(`Hours to wait, 1..${WAIT_HOURS_MAX}.`),
});
const IfIn = z.strictObject({
  id: StepId.optional(),
  kind: z.literal('if'),
  condition: z.enum(CONDITIONS).describe(CONDITION_HELP),
  tags: z
    .array(z.enum(LEAD_TAGS))
    .min(1)
    .max(LEAD_TAGS.length)
    .optional()
    .describe('For tagged: the tags any of which takes then; required with tagged, refused with the other conditions.'),
  withinHours: z.number().int().min(1).max(WITHIN_HOURS_MAX).describe(`Hours to wait for it, 1..${WITHIN_HOURS_MAX}.`),
  get then() {
    return z.array(StepInputSchema).optional().describe('Steps taken as soon as the condition holds.');
  },
  get else() {
    return z.array(StepInputSchema).optional().describe('Steps taken when the time runs out.');
  },
});

/** What the API takes for a step: a kind's fields (as its module says), with an optional id. */
export type StepInput =
  | (Record<string, unknown> & { id?: string; kind: ActionKindName })
  | { id?: string; kind: 'wait'; hours: number }
  | { id?: string; kind: 'if'; condition: Condition; tags?: LeadTag[]; withinHours: number; then?: StepInput[]; else?: StepInput[] };

const StepInputSchema: z.ZodType<StepInput, StepInput> = z
  .discriminatedUnion('kind', [...(ActionIns as unknown as [z.ZodObject, ...z.ZodObject[]]), WaitIn, IfIn])
  .meta({ id: 'Step' }) as unknown as z.ZodType<StepInput, StepInput>;
export const StepInput = StepInputSchema;

export const STEPS_DESCRIPTION =
  `The sequence as steps, run in order; instead of connectionNote and messages. At most ${STEPS_MAX} steps in all, ` +
  `if inside if at most ${STEP_DEPTH_MAX} levels, one invite on any path. After an if's branch the lead goes on with the step after the if. ` +
  'Texts take the placeholders of connectionNote. ' +
  'Example: [{"kind":"visit"},{"kind":"invite","note":"Hi {{firstName}}"},{"kind":"if","condition":"accepted","withinHours":168,' +
  '"then":[{"kind":"wait","hours":24},{"kind":"message","text":"Thanks {{firstName|there}}!","variants":[{"text":"Hi again!"}]}],"else":[{"kind":"withdraw"}]}]';

/**
 * How deep steps nest, for the input guard (core/validation.ts), which refuses a deeper tree
 * before anything recursive (the schema above, this module) reads it; buildSteps says the same.
 */
export const STEPS_NESTING: NestingRule = {
  field: 'steps',
  branches: ['then', 'else'],
  max: STEP_DEPTH_MAX,
  tooDeep: (path, depth) =>
    `${path}: nested ${depth} deep; steps nest at most ${STEP_DEPTH_MAX} deep (an if in an if's branch may hold no further if with steps).`,
};

export const StepsInput = z.array(StepInput).min(1).describe(STEPS_DESCRIPTION);

/** update_agent's: the same shape; the rules and an example are in create_agent's description. */
export const StepsUpdate = z
  .array(StepInput)
  .min(1)
  .describe(
    "The whole sequence as steps, each shaped as in create_agent's steps. Send each step you keep with its id, so leads at it stay there; a step left out ends the sequence of leads at it.",
  );

/* Stored and returned shapes: every step has its id, an if both branches, an invite its note. */
export type Step =
  | ActionStep
  | { id: string; kind: 'wait'; hours: number }
  | { id: string; kind: 'if'; condition: Condition; tags?: LeadTag[]; withinHours: number; then: Step[]; else: Step[] };

const AgentStepSchema: z.ZodType<Step> = z
  .discriminatedUnion('kind', [
    ...(ACTION_KINDS.map((k) => k.output(z)) as unknown as [z.ZodObject, ...z.ZodObject[]]),
    z.object({ id: z.string(), kind: z.literal('wait'), hours: z.number().int() }),
    z.object({
      id: z.string(),
      kind: z.literal('if'),
      condition: z.enum(CONDITIONS),
      tags: z.array(z.enum(LEAD_TAGS)).optional(),
      withinHours: z.number().int(),
      get then(): z.ZodArray<z.ZodType<Step>> {
        return z.array(AgentStepSchema);
      },
      get else(): z.ZodArray<z.ZodType<Step>> {
        return z.array(AgentStepSchema);
      },
    }),
  ])
  .meta({ id: 'AgentStep' }) as unknown as z.ZodType<Step>;
export const AgentStep = AgentStepSchema;

/** One step with where it sits: `steps[2].then[0]`, and how deep (the top level is 1). */
export interface PlacedStep {
  step: Step;
  path: string;
  depth: number;
}

/** Every step in document order (an if, then its `then`, then its `else`). */
export function walkSteps(steps: readonly Step[], prefix = 'steps', depth = 1): PlacedStep[] {
  const out: PlacedStep[] = [];
  steps.forEach((step, i) => {
    const path = `${prefix}[${i}]`;
    out.push({ step, path, depth });
    if (step.kind === 'if') out.push(...walkSteps(step.then, `${path}.then`, depth + 1), ...walkSteps(step.else, `${path}.else`, depth + 1));
  });
  return out;
}

/** The step with this id and where it is, or undefined. */
export function findStep(steps: readonly Step[], id: string): PlacedStep | undefined {
  return walkSteps(steps).find((p) => p.step.id === id);
}

interface Slot {
  list: readonly Step[];
  index: number;
  /** The `if` whose branch holds the list; null for the top level. */
  parent: Step | null;
}

function slots(steps: readonly Step[]): Map<string, Slot> {
  const out = new Map<string, Slot>();
  const visit = (list: readonly Step[], parent: Step | null) =>
    list.forEach((step, index) => {
      out.set(step.id, { list, index, parent });
      if (step.kind === 'if') {
        visit(step.then, step);
        visit(step.else, step);
      }
    });
  visit(steps, null);
  return out;
}

/**
 * Where a lead goes when it is done with step `id` (for an `if`, done with the branch it took):
 * the next step beside it, else the step after the enclosing `if`, and so on up; null at the end
 * of the sequence, and for an id the steps do not have.
 */
export function stepAfter(steps: readonly Step[], id: string): Step | null {
  const all = slots(steps);
  let slot = all.get(id);
  while (slot) {
    const next = slot.list[slot.index + 1];
    if (next) return next;
    if (slot.parent === null) return null;
    slot = all.get(slot.parent.id);
  }
  return null;
}

/** The first step of a branch the `if` took; an empty branch goes on after the `if` (see `stepAfter`). */
export function enterBranch(steps: readonly Step[], ifStep: Extract<Step, { kind: 'if' }>, branch: 'then' | 'else'): Step | null {
  return ifStep[branch][0] ?? stepAfter(steps, ifStep.id);
}

/** Whether the steps send an email (a kind of the email channel): the campaign then needs a mailbox. */
export function stepsUseEmail(steps: readonly Step[]): boolean {
  return walkSteps(steps).some(({ step }) => step.kind !== 'wait' && step.kind !== 'if' && kindOf(step).channel === 'email');
}

/** Whether an `if` of the steps waits on an email: a reply to one, or a bounce. */
export function stepsWaitOnEmail(steps: readonly Step[]): boolean {
  return walkSteps(steps).some(({ step }) => step.kind === 'if' && (step.condition === 'email_replied' || step.condition === 'email_bounced'));
}

/** Whether the steps read what the email channel knows of a lead: they email, or an `if` waits on an email. */
export function stepsReadEmail(steps: readonly Step[]): boolean {
  return stepsUseEmail(steps) || stepsWaitOnEmail(steps);
}

/** How many variants a step has (1 for a step without variants or one that takes none). */
export function variantCount(step: Step): number {
  if (step.kind === 'wait' || step.kind === 'if') return 1;
  return kindOf(step).variants?.(step) ?? 1;
}

/** The text of a variant of an invite (its note) or a message; A is the step's own. */
export function variantText(step: Step & { kind: 'invite' | 'message' }, variant: VariantLetter): string | null {
  // A letter beyond the step's variants (they were edited after the draw) falls back to A.
  if (step.kind === 'invite')
    return variantOf(
      step.note,
      step.variants?.map((v) => v.note),
      variant,
    );
  return variantOf(
    step.text,
    step.variants?.map((v) => v.text),
    variant,
  );
}

/** What a step of this kind was, for keeping ids: an update may keep a step's id, not change its kind. */
export type KnownSteps = ReadonlyMap<string, StepKind>;

/**
 * Checks the rules a schema cannot (the count, the nesting, one invite per path, placeholders,
 * ids) and gives the steps their ids: a new step gets a fresh one, a step sent back with the id
 * of one of `known` keeps it. Every error names its path, e.g. `steps[2].then[0].text`.
 */
export function buildSteps(input: readonly StepInput[], known: KnownSteps | null): Step[] {
  const placed: { step: StepInput; path: string; depth: number }[] = [];
  const collect = (list: readonly StepInput[], prefix: string, depth: number) =>
    list.forEach((step, i) => {
      const path = `${prefix}[${i}]`;
      placed.push({ step, path, depth });
      if (step.kind === 'if') {
        collect(step.then ?? [], `${path}.then`, depth + 1);
        collect(step.else ?? [], `${path}.else`, depth + 1);
      }
    });
  collect(input, 'steps', 1);

  if (placed.length > STEPS_MAX) {
    throw validationError(`steps: ${placed.length} steps in all, then and else included; at most ${STEPS_MAX}.`, ['steps']);
  }
  const tooDeep = placed.find((p) => p.depth > STEP_DEPTH_MAX);
  if (tooDeep) throw validationError(STEPS_NESTING.tooDeep(tooDeep.path, tooDeep.depth), [tooDeep.path]);
  checkOneInvitePerPath(input, 'steps', 0);
  for (const { step, path } of placed) checkPlaceholders(step, path);
  for (const { step, path } of placed) checkTags(step, path);

  const seen = new Set<string>();
  for (const { step, path } of placed) {
    if (step.id === undefined || known === null) continue;
    const was = known.get(step.id);
    if (was === undefined) {
      throw validationError(`${path}.id: ${step.id} is not a step of this agent. Omit id for a new step; get_agent lists the ids.`, [`${path}.id`]);
    }
    if (seen.has(step.id)) throw validationError(`${path}.id: ${step.id} is given twice; a step id names one step.`, [`${path}.id`]);
    if (was !== step.kind) {
      throw validationError(`${path}.id: ${step.id} is a ${was} step and keeps its kind. Omit id to add a new ${step.kind} step.`, [`${path}.id`]);
    }
    seen.add(step.id);
  }
  // On create (`known` null) every id is minted: steps copied from another agent get their own.
  return input.map((s) => toStep(s, known));
}

function toStep(s: StepInput, known: KnownSteps | null): Step {
  const id = known !== null && s.id !== undefined ? s.id : newId('stp');
  if (s.kind === 'wait') return { id, kind: 'wait', hours: s.hours };
  if (s.kind === 'if') {
    return {
      id,
      kind: 'if',
      condition: s.condition,
      ...(s.condition === 'tagged' && s.tags ? { tags: [...new Set(s.tags)] } : {}),
      withinHours: s.withinHours,
      then: (s.then ?? []).map((c) => toStep(c, known)),
      else: (s.else ?? []).map((c) => toStep(c, known)),
    };
  }
  return (actionKind(s.kind) as ActionKind<ActionStep>).toStep(s, id);
}

/**
 * A lead goes through a branch and on with the steps after its `if`, so the invites on a path
 * add up across branches and what follows them. Returns the most invites any path through
 * `list` meets, starting with `before`; the first invite that makes two is the error.
 */
function checkOneInvitePerPath(list: readonly StepInput[], prefix: string, before: number): number {
  let count = before;
  list.forEach((step, i) => {
    const path = `${prefix}[${i}]`;
    if (step.kind === 'invite') {
      if (count >= 1) throw validationError(`${path}: a second invite on one path; a lead is invited at most once, whatever branches it takes.`, [path]);
      count += 1;
    } else if (step.kind === 'if') {
      count = Math.max(checkOneInvitePerPath(step.then ?? [], `${path}.then`, count), checkOneInvitePerPath(step.else ?? [], `${path}.else`, count));
    }
  });
  return count;
}

/** `tags` goes with `tagged`, and only with it. */
function checkTags(step: StepInput, path: string): void {
  if (step.kind !== 'if') return;
  if (step.condition === 'tagged' && (step.tags === undefined || step.tags.length === 0)) {
    throw validationError(`${path}.tags: tagged needs the tags to wait for, e.g. ["Interested"].`, [`${path}.tags`]);
  }
  if (step.condition !== 'tagged' && step.tags !== undefined) {
    throw validationError(`${path}.tags: only a tagged condition takes tags; ${step.condition} takes none.`, [`${path}.tags`]);
  }
}

const PLACEHOLDER_HINT = `Placeholders: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}, optionally with a fallback ({{firstName|there}}).`;

function checkPlaceholders(step: StepInput, path: string): void {
  if (step.kind === 'wait' || step.kind === 'if') return;
  const texts = actionKind(step.kind)?.texts?.(step) ?? [];
  for (const [name, text] of texts) {
    if (typeof text !== 'string') continue;
    const field = `${path}.${name}`;
    const bad = unknownPlaceholders(text);
    if (bad.length) throw validationError(`${field}: unknown placeholder ${bad.map((b) => `"${b}"`).join(', ')}. ${PLACEHOLDER_HINT}`, [field]);
  }
}

/** The ids and kinds of the steps, for `buildSteps` on an update. */
/**
 * The ids a sequence written whole (a workspace file) gives its own steps, so `buildSteps` keeps
 * them; a repeated id keeps its first place, and `buildSteps` refuses the repeat.
 */
export function givenStepIds(input: readonly StepInput[]): KnownSteps {
  const ids = new Map<string, StepKind>();
  const collect = (list: readonly StepInput[]): void => {
    for (const step of list) {
      if (step.id !== undefined && !ids.has(step.id)) ids.set(step.id, step.kind);
      if (step.kind === 'if') {
        collect(step.then ?? []);
        collect(step.else ?? []);
      }
    }
  };
  collect(input);
  return ids;
}

export const knownSteps = (steps: readonly Step[]): KnownSteps => new Map(walkSteps(steps).map((p) => [p.step.id, p.step.kind]));

/** A legacy agent's step ids are derived from the agent and the step's role, so they stay put across reads and restarts. */
const legacyId = (agentId: string, role: string): string => `stp_${createHash('sha256').update(`${agentId}:${role}`).digest('hex').slice(0, 16)}`;

export interface LegacySequence {
  connectionNote: string | null;
  messages: readonly { text: string; delayHours: number }[];
}

/**
 * How an agent written with `connectionNote` and `messages` reads as steps: invite(note), then
 * `if accepted within <invitation timeout>`, whose `then` holds each message after a wait of its
 * `delayHours` (none for 0: the message follows at once, as before), and whose `else` withdraws
 * the invitation. A message's ids follow its position, so a lead at the second message stays at
 * the second message when the messages are replaced, as leads always did.
 */
export function legacySteps(agentId: string, legacy: LegacySequence, invitationTimeoutHours: number): Step[] {
  const then: Step[] = [];
  legacy.messages.forEach((m, i) => {
    if (m.delayHours > 0) then.push({ id: legacyId(agentId, `wait:${i}`), kind: 'wait', hours: m.delayHours });
    then.push({ id: legacyId(agentId, `message:${i}`), kind: 'message', text: m.text });
  });
  return [
    { id: legacyId(agentId, 'invite'), kind: 'invite', note: legacy.connectionNote },
    {
      id: legacyId(agentId, 'if'),
      kind: 'if',
      condition: 'accepted',
      withinHours: Math.max(1, Math.round(invitationTimeoutHours)),
      then,
      else: [{ id: legacyId(agentId, 'withdraw'), kind: 'withdraw' }],
    },
  ];
}

/**
 * The older shape read back from steps: the first invite's note, and the message steps on the
 * path where every `if` holds, each with the hours of the waits before it since the previous
 * message (the first: since the start of the path).
 */
export function mainPath(steps: readonly Step[]): LegacySequence {
  let connectionNote: string | null = null;
  let invited = false;
  const messages: { text: string; delayHours: number }[] = [];
  let waited = 0;
  const walk = (list: readonly Step[]) => {
    for (const step of list) {
      if (step.kind === 'invite' && !invited) {
        invited = true;
        connectionNote = step.note;
      } else if (step.kind === 'wait') waited += step.hours;
      else if (step.kind === 'message') {
        messages.push({ text: step.text, delayHours: waited });
        waited = 0;
      } else if (step.kind === 'if') walk(step.then);
    }
  };
  walk(steps);
  return { connectionNote, messages };
}

/** Stored steps; an unreadable value reads as none (the writer validated it). */
export function parseStoredSteps(json: string): Step[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as Step[]) : [];
  } catch {
    return [];
  }
}
