// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else, as the API names them; these objects are never awaited.
/**
 * How a sequence's steps read to a person, the same in the agent editor, its preview and the
 * step funnel (dashboard and MCP App view): the kinds' names, hours as days, the branches of an
 * `if`, and each step's number in document order (an `if`, then its `then`, then its `else`),
 * which is also the order get_agent_stats lists them in.
 */
import { KIND_LABELS } from '../../src/core/steps/registry.js';
import type { AgentStep, StepKind } from './types.js';

/** Each kind that reaches the network reads as its module says (src/core/steps/); `wait` and `if` are the sequence's own. */
const KINDS = {
  ...Object.fromEntries(KIND_LABELS.map((k) => [k.kind, k.label])),
  wait: 'Wait',
  if: 'If',
} as Record<StepKind, string>;
export const STEP_KINDS = /* @__PURE__ */ Object.keys(KINDS) as StepKind[];
export const stepKindLabel = (kind: string): string => KINDS[kind as StepKind] ?? kind;

/** The variant letters: a step's own text is A, its alternatives B to E (the API takes 1..4 of them). */
export const VARIANT_LETTERS = ['A', 'B', 'C', 'D', 'E'] as const;
export const VARIANTS_MAX = VARIANT_LETTERS.length;

/** "5 hours", "1 day", "7 days", "30 hours": whole days read as days. */
export function formatHours(hours: number): string {
  if (!Number.isFinite(hours)) return '—';
  if (hours >= 24 && hours % 24 === 0) return hours === 24 ? '1 day' : `${hours / 24} days`;
  return hours === 1 ? '1 hour' : `${hours} hours`;
}

export type Condition = Extract<AgentStep, { kind: 'if' }>['condition'];
export type Branch = 'then' | 'else';

/**
 * How each condition of an `if` reads: what holds, said after "If" and in its `then` branch, and
 * what did not happen, in its `else` branch. Typed by the server's conditions, so a condition
 * added there fails the type-check until it has words here.
 */
export const CONDITION_LABELS: Readonly<Record<Condition, { option: string; holds: string; not: string }>> = {
  accepted: { option: 'The invitation is accepted', holds: 'Accepted', not: 'Not accepted' },
  replied: { option: 'The lead replies (LinkedIn or email)', holds: 'Replied', not: 'No reply' },
  email_replied: { option: 'The lead replies to an email', holds: 'Replied to an email', not: 'No email reply' },
  email_bounced: { option: 'An email to the lead bounces', holds: 'Email bounced', not: 'No bounce' },
  tagged: { option: 'The lead is tagged', holds: 'Tagged', not: 'Not tagged' },
};
export const CONDITIONS = /* @__PURE__ */ Object.keys(CONDITION_LABELS) as Condition[];
/** The conditions after which a reply has ended the sequence, so their `then` branch never runs. */
export const ENDS_AT_REPLY: ReadonlySet<Condition> = new Set<Condition>(['replied', 'email_replied']);

const taggedWith = (tags: readonly string[] | undefined): string => (tags && tags.length > 0 ? ` ${tags.join(' or ')}` : '');

/** What a branch of `if <condition> within <hours>` means for the lead who takes it. */
export function branchLabel(condition: Condition, withinHours: number, branch: Branch, tags?: readonly string[]): string {
  const within = formatHours(withinHours);
  const words = CONDITION_LABELS[condition] ?? { holds: condition, not: `Not ${condition}` };
  const what = condition === 'tagged' ? taggedWith(tags) : '';
  return branch === 'then' ? `${words.holds}${what} within ${within}` : `${words.not}${what} after ${within}`;
}

export const conditionLabel = (condition: Condition, withinHours: number, tags?: readonly string[]): string =>
  `If ${(CONDITION_LABELS[condition]?.holds ?? condition).toLowerCase()}${condition === 'tagged' ? taggedWith(tags) : ''} within ${formatHours(withinHours)}`;

/** One saved step with where it sits: `steps[2].then[0]`, its number (1-based, document order) and depth (top level 1). */
export interface PlacedStep {
  step: AgentStep;
  path: string;
  number: number;
  depth: number;
  /** The `if` whose branch holds it, and which branch; undefined at the top level. */
  parent?: { step: Extract<AgentStep, { kind: 'if' }>; number: number; branch: Branch };
}

/** Every step in document order, as the server walks them. */
export function placeSteps(steps: readonly AgentStep[]): PlacedStep[] {
  const out: PlacedStep[] = [];
  const walk = (list: readonly AgentStep[], prefix: string, depth: number, parent: PlacedStep['parent']) => {
    list.forEach((step, i) => {
      const placed: PlacedStep = { step, path: `${prefix}[${i}]`, number: out.length + 1, depth, ...(parent ? { parent } : {}) };
      out.push(placed);
      if (step.kind === 'if') {
        walk(step.then, `${placed.path}.then`, depth + 1, { step, number: placed.number, branch: 'then' });
        walk(step.else, `${placed.path}.else`, depth + 1, { step, number: placed.number, branch: 'else' });
      }
    });
  };
  walk(steps, 'steps', 1, undefined);
  return out;
}

/** How deep a path is (`steps[2].then[0]` is 2) and the branch it ends in, read from the path alone. */
export function pathDepth(path: string): number {
  return (path.match(/\[\d+\]/g) ?? []).length;
}

/** The reasons the kinds give for a skipped step, in their words. */
const SKIPS: Readonly<Record<string, string>> = Object.assign({}, ...KIND_LABELS.map((k) => k.skipReasons));
/** Why a step was skipped, in words; a reason this build does not know reads as its code. */
export const skipReasonLabel = (reason: string): string => SKIPS[reason] ?? reason.replace(/_/g, ' ');

/** A share as a percentage with one decimal, or null when there is nothing to divide by. */
export const rateOf = (part: number, whole: number): number | null => (whole > 0 ? (part / whole) * 100 : null);
