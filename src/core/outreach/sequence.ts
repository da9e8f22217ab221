import { walkSteps, type Step, type StepKind } from '../agents/steps.js';
import type { StepFacts } from '../steps/kind.js';
import { kindOf, kindOfIntent, type ActionStep } from '../steps/registry.js';

/**
 * The step runner's decision, pure: from a lead's stored position in its agent's steps and what
 * is known about the lead (invited, accepted, replied, reachable), what happens next and when.
 * It walks forward through everything that needs no provider call (waits, `if`s, skipped steps)
 * to the first step that does, or to the end of the sequence, and lists the steps it passed on
 * the way with when each was reached. The writer (./runner.ts) stores what of that walk lies in
 * the past; the engine schedules the rest. Nothing here reads a clock or a database.
 */

const HOUR = 3_600_000;
/** A walk never visits more nodes than this (25 steps, each at most once per walk, and some slack). */
const WALK_MAX = 64;

/** Steps that reach the network (a kind of src/core/steps/); every other kind is decided here alone. */
export type PerformStep = ActionStep;
export type PerformKind = PerformStep['kind'];
export const isPerformStep = (s: Step): s is PerformStep => s.kind !== 'wait' && s.kind !== 'if';

/** An agent's steps, indexed once for the runner (kept with the campaign in memory). */
export interface SequenceIndex {
  steps: readonly Step[];
  /** Written with `connectionNote` and `messages`: the waits and the timeout keep their old rules. */
  legacy: boolean;
  first: string | null;
  byId: ReadonlyMap<string, IndexedStep>;
  /** The message steps on the path where every `if` holds, in order (see `derivedStart`). */
  mainMessages: readonly string[];
}

export interface IndexedStep {
  step: Step;
  /** The step a lead goes to when done with this one (for an `if`: done with its branch). */
  next: string | null;
  /** For a message step: its place among the agent's message steps (the intent's `step`). */
  messageIndex: number | null;
  path: string;
}

export function indexSequence(steps: readonly Step[], legacy: boolean): SequenceIndex {
  const byId = new Map<string, IndexedStep>();
  const placed = walkSteps(steps);
  const paths = new Map(placed.map((p) => [p.step.id, p.path]));
  let messages = 0;
  const visit = (list: readonly Step[], after: string | null) => {
    list.forEach((step, i) => {
      const next = list[i + 1]?.id ?? after;
      byId.set(step.id, { step, next, messageIndex: step.kind === 'message' ? messages++ : null, path: paths.get(step.id) ?? '' });
      if (step.kind === 'if') {
        visit(step.then, next);
        visit(step.else, next);
      }
    });
  };
  // Message indexes follow document order, as walkSteps lists them: an if, its then, its else.
  visit(steps, null);
  // The path where every if holds, as mainPath reads connectionNote and messages back.
  const mainMessages: string[] = [];
  const collect = (list: readonly Step[]) => {
    for (const step of list) {
      if (step.kind === 'message') mainMessages.push(step.id);
      else if (step.kind === 'if') collect(step.then);
    }
  };
  collect(steps);
  return { steps, legacy, first: steps[0]?.id ?? null, byId, mainMessages };
}

/** What the runner knows of the lead, read from its row. */
export interface LeadFacts extends StepFacts {
  connectedAt: number | null;
  replied: boolean;
  repliedAt: number | null;
  /** It has a profile URL or a provider id to reach. */
  reachable: boolean;
  /** Sequence messages sent: the counter, or 1 for a lead loaded as messaged. */
  messagesDone: number;
  lastSentAt: number | null;
  updatedAt: number;
  /**
   * Where the lead's draft for a step that carries words stands (drafts and approval): its
   * status, null when it has none, `not_needed` when the step sends no words (an invitation whose
   * drawn note is empty). Absent: no draft is ever looked at.
   */
  draftOf?: (step: PerformStep) => DraftState | 'not_needed' | null;
  /** The campaign requires a person's approval: a step that carries words waits for its draft. */
  approval?: boolean;
  /** When the lead first replied to one of our emails, and when one of them first bounced (absent: never). */
  emailRepliedAt?: number | null;
  emailBouncedAt?: number | null;
  /** The lead's confirmed tag and when it was set (absent: none). */
  tag?: string | null;
  taggedAt?: number | null;
}

/** Whether an `if`'s condition holds for the lead, and since when (null: not known, read as the moment the if was reached). */
export function conditionHeld(step: Extract<Step, { kind: 'if' }>, facts: LeadFacts): { held: boolean; at: number | null } {
  switch (step.condition) {
    case 'accepted':
      return { held: facts.accepted, at: facts.connectedAt };
    case 'replied':
      return { held: facts.replied, at: facts.repliedAt };
    case 'email_replied':
      return { held: facts.emailRepliedAt != null, at: facts.emailRepliedAt ?? null };
    case 'email_bounced':
      return { held: facts.emailBouncedAt != null, at: facts.emailBouncedAt ?? null };
    case 'tagged': {
      const tag = facts.tag ?? null;
      return { held: tag !== null && (step.tags ?? []).includes(tag as never), at: facts.taggedAt ?? null };
    }
  }
}

/**
 * A draft's status as the walk reads it; `skipped_counted` is a skipped draft whose step was
 * counted skipped when the draft was closed (an exclusion closes a lead's drafts that way), so
 * a walk that passes it later (the lead included again) does not count it a second time.
 */
export type DraftState = 'pending' | 'approved' | 'rejected' | 'sent' | 'skipped' | 'skipped_counted';

/** Steps whose words a person may have to approve first (a note, a message, an InMail), as each kind says. */
export const carriesWords = (step: PerformStep): boolean => kindOf(step).carriesWords?.(step) === true;

export interface SequenceRules {
  /** A legacy agent's `if accepted` waits this long, from the invitation. */
  invitationTimeoutMs: number;
  /** After the sequence, a lead that was sent a message keeps work this long: a reply may come. */
  replyWaitMs: number;
  /** A legacy agent's `else` withdraws the invitation only when stale invitations are withdrawn. */
  withdrawStale: boolean;
}

/** Where a walk starts: the lead's stored position, or one derived for a lead without one. */
export interface WalkStart {
  stepId: string | null;
  enteredAt: number;
  /** Whether reaching `stepId` is recorded already (a stored position is). */
  recorded: boolean;
  /** A start not stored yet whose time is not known (0 until written): waits cannot count from it. */
  virtual: boolean;
}

/** A step the walk passed: a wait or an `if` entered (`sent`), or a step skipped with why. */
export interface Passed {
  step: Step;
  at: number;
  event: 'sent' | 'skipped';
  reason: string | null;
  /** Whether this passage is recorded already (a stored position's own wait or if). */
  recorded: boolean;
}

export type SequenceDecision =
  /** A step that reaches the network, due at `at` (0: as soon as possible). */
  | { kind: 'perform'; step: PerformStep; at: number; passed: Passed[] }
  /** A step whose words need a person's approval and have no draft yet: one is to be written. */
  | { kind: 'draft'; step: PerformStep; at: number; passed: Passed[] }
  /** A step whose draft waits for a person: the lead waits at the step. */
  | { kind: 'await'; step: PerformStep; at: number; passed: Passed[] }
  /** The step needs a profile to reach and the lead has none: it fails. */
  | { kind: 'fail'; step: PerformStep; at: number; passed: Passed[] }
  /** The sequence ends at `at`: its last step is done, the step the lead was at is gone, or a person rejected its draft. */
  | { kind: 'end'; reason: 'completed' | 'step_removed' | 'rejected'; at: number; passed: Passed[] }
  /** A lead without a stored position whose first steps count time: its start must be stored first. */
  | { kind: 'start'; passed: Passed[] };

const skip = (step: Step, at: number, reason: string): Passed => ({ step, at, event: 'skipped', reason, recorded: false });

/**
 * The start of a lead with no stored position (or one for another agent's steps). A lead that
 * sent sequence messages before positions were stored goes on after its last one on the main
 * path, as the message counter always said; any other starts at the first step, at a time not
 * known yet.
 */
export function derivedStart(seq: SequenceIndex, facts: LeadFacts): WalkStart {
  const done = facts.messagesDone;
  if (done > 0) {
    const after = seq.mainMessages[done - 1];
    const stepId = after === undefined ? null : (seq.byId.get(after)?.next ?? null);
    return { stepId, enteredAt: facts.lastSentAt ?? facts.updatedAt, recorded: false, virtual: false };
  }
  return { stepId: seq.first, enteredAt: 0, recorded: false, virtual: true };
}

/**
 * Walks from `start` to the next step that needs the network, or the end. Conditions are read as
 * they stand: an `if` whose condition held within its time takes `then` at the moment it held
 * (never before the `if` was reached), else it takes `else` when its time runs out. If that changes meanwhile (an
 * acceptance comes in) the lead is planned again. A legacy agent keeps its old timing: the
 * invitation timeout counts from the invitation, and its messages from the acceptance.
 */
export function decide(seq: SequenceIndex, facts: LeadFacts, start: WalkStart, rules: SequenceRules): SequenceDecision {
  const passed: Passed[] = [];
  let id = start.stepId;
  let at = start.enteredAt;
  let virtual = start.virtual;
  let recorded = start.recorded;
  for (let n = 0; n < WALK_MAX; n++) {
    if (id === null) return { kind: 'end', reason: 'completed', at, passed };
    const node = seq.byId.get(id);
    if (!node) return { kind: 'end', reason: 'step_removed', at, passed };
    const step = node.step;
    let next: string | null = node.next;
    switch (step.kind) {
      case 'wait':
        if (virtual) return { kind: 'start', passed };
        passed.push({ step, at, event: 'sent', reason: null, recorded });
        at += step.hours * HOUR;
        break;
      case 'if': {
        if (virtual && !seq.legacy) return { kind: 'start', passed };
        passed.push({ step, at, event: 'sent', reason: null, recorded });
        const { held, at: heldAt } = conditionHeld(step, facts);
        // It must have held within its time: an acceptance that came after `withinHours` ran out
        // (noticed late, say, when the deadline fell outside the sender's working hours) is `else`'s.
        const deadline = at + step.withinHours * HOUR;
        if (held && (seq.legacy || heldAt === null || heldAt <= deadline)) {
          // The old shape counted its first message from the acceptance, whenever it came.
          at = seq.legacy ? (facts.connectedAt ?? facts.updatedAt) : Math.max(at, heldAt ?? at);
          next = step.then[0]?.id ?? node.next;
        } else {
          at = seq.legacy ? (facts.invitedAt ?? facts.updatedAt) + rules.invitationTimeoutMs : deadline;
          next = step.else[0]?.id ?? node.next;
        }
        // Past an if, its time is known whatever the start's was.
        virtual = false;
        break;
      }
      default: {
        const why = skipReason(step, facts, seq.legacy, rules);
        if (why !== null) {
          passed.push(skip(step, at, why));
          break;
        }
        // An email goes to the lead's address: it needs no profile to reach.
        if (!facts.reachable && kindOf(step).channel !== 'email') return { kind: 'fail', step, at, passed };
        const draft = carriesWords(step) && facts.draftOf ? facts.draftOf(step) : 'not_needed';
        if (draft === 'rejected') return { kind: 'end', reason: 'rejected', at, passed };
        if (draft === 'skipped' || draft === 'skipped_counted') {
          // Its draft was skipped (its step could not be sent): the lead goes on as after any skipped step.
          passed.push({ ...skip(step, at, 'draft_skipped'), recorded: draft === 'skipped_counted' });
          break;
        }
        if (draft === 'pending') return { kind: 'await', step, at, passed };
        if (draft === null && facts.approval === true) return { kind: 'draft', step, at, passed };
        if (draft === 'sent') {
          // Sent already (its result was recorded with the draft's): the lead goes on.
          passed.push({ step, at, event: 'sent', reason: null, recorded: true });
          break;
        }
        return { kind: 'perform', step, at, passed };
      }
    }
    id = next;
    recorded = false;
  }
  // Steps form a tree and a walk only goes forward, so this is never reached; end rather than loop.
  return { kind: 'end', reason: 'completed', at, passed };
}

/** Why a step that reaches the network is skipped for this lead (its kind's rule), or null when it is carried out. */
function skipReason(step: PerformStep, facts: LeadFacts, legacy: boolean, rules: SequenceRules): string | null {
  return kindOf(step).skip(step, facts, { legacy, withdrawStale: rules.withdrawStale });
}

/** The step kind a stored engine intent performs; undefined for a conversation's send. */
export const stepOfIntent = (intent: string): StepKind | undefined => kindOfIntent(intent)?.kind as StepKind | undefined;
