import { branchLabel, type Branch, ENDS_AT_REPLY, placeSteps } from '../../../shared/steps.js';
import type { AgentStep } from '../../../shared/types.js';

/** One stop on a lead's way through the sequence: a step, and for an `if`, the branch taken. */
export interface PathStop {
  step: AgentStep;
  number: number;
  branch?: Branch;
}

export interface SequencePath {
  /** "Accepted within 7 days, then no reply after 3 days"; "Every lead" when nothing branches. */
  label: string;
  stops: PathStop[];
  /** The path ends at a reply (`if replied`'s then): the inbox takes over. */
  endsAtReply: boolean;
}

export const PATHS_MAX = 32;

/**
 * Every way a lead can go through the steps: at each `if` one path takes `then` and another
 * `else`, and after a branch the lead goes on with the step after the `if`. A reply ends the
 * sequence, so the `then` of an `if replied` ends its path there. At most PATHS_MAX paths (a
 * sequence of many ifs has more than anyone reads).
 */
export function sequencePaths(steps: readonly AgentStep[]): { paths: SequencePath[]; more: boolean } {
  const numbers = new Map(placeSteps(steps).map((p) => [p.step.id, p.number]));
  const paths: SequencePath[] = [];
  let more = false;
  /** `rest` holds what is left of each enclosing list, innermost first. */
  const walk = (rest: (readonly AgentStep[])[], stops: PathStop[], labels: string[]) => {
    if (paths.length >= PATHS_MAX) {
      more = true;
      return;
    }
    const [list, ...outer] = rest;
    if (list === undefined) {
      paths.push({ label: labels.join(', then ') || 'Every lead', stops, endsAtReply: false });
      return;
    }
    const [step, ...after] = list;
    if (step === undefined) return walk(outer, stops, labels);
    const number = numbers.get(step.id) ?? 0;
    if (step.kind !== 'if') return walk([after, ...outer], [...stops, { step, number }], labels);
    for (const branch of ['then', 'else'] as const) {
      const label = branchLabel(step.condition, step.withinHours, branch, step.tags);
      const taken = [...stops, { step, number, branch }];
      const named = [...labels, labels.length === 0 ? label : label.charAt(0).toLowerCase() + label.slice(1)];
      if (ENDS_AT_REPLY.has(step.condition) && branch === 'then') {
        if (paths.length >= PATHS_MAX) more = true;
        else paths.push({ label: named.join(', then '), stops: taken, endsAtReply: true });
        continue;
      }
      walk([step[branch], after, ...outer], taken, named);
    }
  };
  walk([steps], [], []);
  return { paths, more };
}
