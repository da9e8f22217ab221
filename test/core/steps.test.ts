// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else (docs/sequences.md); these objects are never awaited.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import {
  buildSteps,
  enterBranch,
  findStep,
  knownSteps,
  legacySteps,
  mainPath,
  type StepInput,
  StepsInput,
  stepAfter,
  variantCount,
  variantText,
  walkSteps,
  type Step,
} from '../../src/core/agents/steps.js';
import { zodToApiError } from '../../src/core/validation.js';

/** The fields of the validation error that `fn` throws. */
function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) {
      expect(err.code).toBe('validation_error');
      return err.details.fields ?? [];
    }
    throw err;
  }
  throw new Error('expected a validation error');
}

/** What the schema says about `steps`, as the pipeline reports it. */
function schemaFields(steps: unknown): string[] {
  const parsed = StepsInput.safeParse(steps);
  if (parsed.success) return [];
  return zodToApiError(parsed.error).details.fields!.map((f) => (f === '' ? 'steps' : `steps${f.startsWith('[') ? '' : '.'}${f}`));
}

const branching = (): StepInput[] => [
  { kind: 'visit' },
  { kind: 'invite', note: 'Hi {{firstName}}', variants: [{ note: null }] },
  {
    kind: 'if',
    condition: 'accepted',
    withinHours: 168,
    then: [
      { kind: 'wait', hours: 24 },
      { kind: 'message', text: 'Thanks {{firstName|there}}', variants: [{ text: 'Hello {{ fullName }}' }, { text: 'Hey' }] },
      { kind: 'if', condition: 'replied', withinHours: 72, then: [], else: [{ kind: 'message', text: 'Bump' }] },
    ],
    else: [{ kind: 'withdraw' }, { kind: 'inmail', subject: 'Idea for {{companyName}}', text: 'Hi {{firstName}}' }],
  },
  { kind: 'like_post' },
];

describe('steps: shape', () => {
  it('accepts a branching sequence and gives every step an id', () => {
    const steps = buildSteps(branching(), null);
    const placed = walkSteps(steps);
    expect(placed.map((p) => p.path)).toEqual([
      'steps[0]',
      'steps[1]',
      'steps[2]',
      'steps[2].then[0]',
      'steps[2].then[1]',
      'steps[2].then[2]',
      'steps[2].then[2].else[0]',
      'steps[2].else[0]',
      'steps[2].else[1]',
      'steps[3]',
    ]);
    expect(new Set(placed.map((p) => p.step.id)).size).toBe(10);
    for (const p of placed) expect(p.step.id).toMatch(/^stp_[A-Za-z0-9]{16}$/);
    // Branches are always there in what is stored, empty or not; an invite always has its note.
    expect(steps[2]).toMatchObject({ kind: 'if', then: expect.any(Array), else: expect.any(Array) });
    expect(buildSteps([{ kind: 'invite' }], null)[0]).toMatchObject({ kind: 'invite', note: null });
    expect(buildSteps([{ kind: 'invite', note: '  ' }], null)[0]).toMatchObject({ note: null });
  });

  it('names the path of a bad field, a missing field and an unknown kind', () => {
    expect(schemaFields([{ kind: 'visit' }, { kind: 'if', condition: 'accepted', withinHours: 1, then: [{ kind: 'message', text: '' }] }])).toEqual([
      'steps[1].then[0].text',
    ]);
    expect(schemaFields([{ kind: 'message' }])).toEqual(['steps[0].text']);
    expect(schemaFields([{ kind: 'jump' }])).toEqual(['steps[0].kind']);
    expect(schemaFields([{ kind: 'wait', hours: 721 }])).toEqual(['steps[0].hours']);
    expect(schemaFields([{ kind: 'wait', hours: 0 }])).toEqual(['steps[0].hours']);
    expect(schemaFields([{ kind: 'if', condition: 'opened', withinHours: 5 }])).toEqual(['steps[0].condition']);
    expect(schemaFields([{ kind: 'if', condition: 'replied', withinHours: 2161 }])).toEqual(['steps[0].withinHours']);
    expect(schemaFields([{ kind: 'invite', note: 'x'.repeat(301) }])).toEqual(['steps[0].note']);
    expect(schemaFields([{ kind: 'message', text: 'x'.repeat(8001) }])).toEqual(['steps[0].text']);
    expect(schemaFields([{ kind: 'inmail', subject: 'x'.repeat(201), text: 'y' }])).toEqual(['steps[0].subject']);
    expect(schemaFields([{ kind: 'message', text: 'a', variants: [] }])).toEqual(['steps[0].variants']);
    expect(schemaFields([{ kind: 'message', text: 'a', variants: Array.from({ length: 5 }, () => ({ text: 'b' })) }])).toEqual(['steps[0].variants']);
    expect(schemaFields([{ kind: 'message', text: 'a', variants: [{ note: 'b' }] }])).toEqual(['steps[0].variants[0].text', 'steps[0].variants[0].note']);
    expect(schemaFields([{ kind: 'visit', text: 'hi' }])).toEqual(['steps[0].text']);
    expect(schemaFields([])).toEqual(['steps']);
  });

  it('allows at most 25 steps in all, branches included', () => {
    const twentyFive: StepInput[] = [
      ...Array.from({ length: 20 }, () => ({ kind: 'visit' as const })),
      { kind: 'if', condition: 'replied', withinHours: 1, then: [{ kind: 'visit' }, { kind: 'visit' }], else: [{ kind: 'visit' }, { kind: 'visit' }] },
    ];
    expect(walkSteps(buildSteps(twentyFive, null))).toHaveLength(25);
    const if26 = twentyFive[20] as Extract<StepInput, { kind: 'if' }>;
    expect(fieldsOf(() => buildSteps([...twentyFive.slice(0, 20), { ...if26, else: [...(if26.else ?? []), { kind: 'visit' }] }], null))).toEqual(['steps']);
  });

  it('nests at most 3 deep', () => {
    const nest = (depth: number): StepInput =>
      depth === 0 ? { kind: 'visit' } : { kind: 'if', condition: 'replied', withinHours: 1, then: [nest(depth - 1)] };
    expect(() => buildSteps([nest(2)], null)).not.toThrow();
    expect(fieldsOf(() => buildSteps([nest(3)], null))).toEqual(['steps[0].then[0].then[0].then[0]']);
    // An if at the third level is allowed while its branches are empty.
    expect(() =>
      buildSteps([{ kind: 'if', condition: 'replied', withinHours: 1, then: [nest(1)], else: [{ kind: 'if', condition: 'accepted', withinHours: 1 }] }], null),
    ).not.toThrow();
  });

  it('allows one invite on any path, across branches and what follows them', () => {
    expect(() =>
      buildSteps([{ kind: 'if', condition: 'replied', withinHours: 1, then: [{ kind: 'invite' }], else: [{ kind: 'invite', note: 'x' }] }], null),
    ).not.toThrow();
    expect(
      fieldsOf(() => buildSteps([{ kind: 'invite' }, { kind: 'if', condition: 'accepted', withinHours: 1, then: [], else: [{ kind: 'invite' }] }], null)),
    ).toEqual(['steps[1].else[0]']);
    expect(fieldsOf(() => buildSteps([{ kind: 'if', condition: 'replied', withinHours: 1, then: [{ kind: 'invite' }] }, { kind: 'invite' }], null))).toEqual([
      'steps[1]',
    ]);
  });

  it('checks placeholders in every text, naming the field', () => {
    const at = (steps: StepInput[]) => fieldsOf(() => buildSteps(steps, null));
    expect(at([{ kind: 'message', text: 'ok', variants: [{ text: 'Hi {{nick}}' }] }])).toEqual(['steps[0].variants[0].text']);
    expect(at([{ kind: 'if', condition: 'accepted', withinHours: 1, then: [{ kind: 'message', text: '{{firstName}' }] }])).toEqual(['steps[0].then[0].text']);
    expect(at([{ kind: 'invite', note: '{{title}}' }])).toEqual(['steps[0].note']);
    expect(at([{ kind: 'invite', variants: [{ note: '{{x}}' }] }])).toEqual(['steps[0].variants[0].note']);
    expect(at([{ kind: 'inmail', subject: 'For {{company}}', text: 'x' }])).toEqual(['steps[0].subject']);
    expect(at([{ kind: 'inmail', subject: 'x', text: '{{ foo | bar }}' }])).toEqual(['steps[0].text']);
  });
});

describe('steps: ids', () => {
  const existing = () => buildSteps(branching(), null);

  it('an update keeps the id of a step sent back with it, and mints ids for new steps', () => {
    const before = existing();
    const message = findStep(before, (before[2] as Extract<Step, { kind: 'if' }>).then[1]!.id)!;
    const after = buildSteps(
      [{ kind: 'invite', id: before[1]!.id, note: 'New note' }, { kind: 'message', id: message.step.id, text: 'Changed' }, { kind: 'visit' }],
      knownSteps(before),
    );
    expect(after[0]!.id).toBe(before[1]!.id);
    expect(after[1]!.id).toBe(message.step.id);
    expect(knownSteps(before).has(after[2]!.id)).toBe(false);
  });

  it('refuses an id the agent does not have, one given twice, and one sent back with another kind', () => {
    const before = existing();
    expect(fieldsOf(() => buildSteps([{ kind: 'visit' }, { kind: 'visit', id: 'stp_notmine' }], knownSteps(before)))).toEqual(['steps[1].id']);
    expect(
      fieldsOf(() =>
        buildSteps(
          [
            { kind: 'visit', id: before[0]!.id },
            { kind: 'visit', id: before[0]!.id },
          ],
          knownSteps(before),
        ),
      ),
    ).toEqual(['steps[1].id']);
    expect(fieldsOf(() => buildSteps([{ kind: 'like_post', id: before[0]!.id }], knownSteps(before)))).toEqual(['steps[0].id']);
    expect(schemaFields([{ kind: 'visit', id: 'tpl_x' }])).toEqual(['steps[0].id']);
  });

  it('create mints fresh ids even for steps copied with ids from another agent', () => {
    const before = existing();
    const copied = buildSteps(before as StepInput[], null);
    expect(walkSteps(copied).map((p) => p.step.id)).not.toContain(before[0]!.id);
  });
});

describe('steps: the legacy shape', () => {
  const legacy = {
    connectionNote: 'Hi {{firstName}}',
    messages: [
      { text: 'One', delayHours: 0 },
      { text: 'Two', delayHours: 48 },
    ],
  };

  it('reads as invite, then if accepted within the invitation timeout: messages after their waits, else withdraw', () => {
    const steps = legacySteps('tpl_a', legacy, 21 * 24);
    expect(steps.map(stripIds)).toEqual([
      { kind: 'invite', note: 'Hi {{firstName}}' },
      {
        kind: 'if',
        condition: 'accepted',
        withinHours: 504,
        then: [
          { kind: 'message', text: 'One' },
          { kind: 'wait', hours: 48 },
          { kind: 'message', text: 'Two' },
        ],
        else: [{ kind: 'withdraw' }],
      },
    ]);
  });

  it('has ids that are stable for the agent and follow the message positions', () => {
    const a = legacySteps('tpl_a', legacy, 504);
    expect(legacySteps('tpl_a', legacy, 504)).toEqual(a);
    expect(legacySteps('tpl_b', legacy, 504)[0]!.id).not.toBe(a[0]!.id);
    const replaced = legacySteps(
      'tpl_a',
      {
        connectionNote: null,
        messages: [
          { text: 'X', delayHours: 1 },
          { text: 'Y', delayHours: 0 },
        ],
      },
      504,
    );
    const messageIds = (s: Step[]) =>
      walkSteps(s)
        .filter((p) => p.step.kind === 'message')
        .map((p) => p.step.id);
    expect(messageIds(replaced)).toEqual(messageIds(a));
    for (const p of walkSteps(a)) expect(p.step.id).toMatch(/^stp_[0-9a-f]{16}$/);
  });

  it('reads back as the same connectionNote and messages', () => {
    expect(mainPath(legacySteps('tpl_a', legacy, 504))).toEqual(legacy);
    expect(mainPath(legacySteps('tpl_a', { connectionNote: null, messages: [] }, 504))).toEqual({ connectionNote: null, messages: [] });
  });
});

describe('steps: the main path', () => {
  it('is the first invite note and the messages where every if holds, with the waits before each', () => {
    const steps = buildSteps(branching(), null);
    expect(mainPath(steps)).toEqual({
      connectionNote: 'Hi {{firstName}}',
      messages: [{ text: 'Thanks {{firstName|there}}', delayHours: 24 }],
    });
    const withAfter = buildSteps(
      [
        { kind: 'wait', hours: 5 },
        { kind: 'if', condition: 'replied', withinHours: 3, then: [{ kind: 'wait', hours: 2 }] },
        { kind: 'message', text: 'After' },
      ],
      null,
    );
    expect(mainPath(withAfter)).toEqual({ connectionNote: null, messages: [{ text: 'After', delayHours: 7 }] });
  });
});

describe('steps: variants', () => {
  it('A is the step text, B and on the alternatives', () => {
    const [invite, message] = buildSteps(
      [
        { kind: 'invite', note: 'A note', variants: [{ note: null }] },
        { kind: 'message', text: 'A', variants: [{ text: 'B' }, { text: 'C' }] },
      ],
      null,
    );
    expect(variantCount(invite!)).toBe(2);
    expect(variantCount(message!)).toBe(3);
    expect(variantText(invite as Extract<Step, { kind: 'invite' }>, 'A')).toBe('A note');
    expect(variantText(invite as Extract<Step, { kind: 'invite' }>, 'B')).toBeNull();
    expect(variantText(message as Extract<Step, { kind: 'message' }>, 'C')).toBe('C');
    expect(variantCount(buildSteps([{ kind: 'visit' }], null)[0]!)).toBe(1);
  });
});

function stripIds(step: Step): unknown {
  const { id: _id, ...rest } = step;
  if (rest.kind === 'if') return { ...rest, then: rest.then.map(stripIds), else: rest.else.map(stripIds) };
  return rest;
}

describe('steps: moving on', () => {
  it('goes to the next step, out of a branch to the step after its if, and ends after the last', () => {
    const steps = buildSteps(branching(), null);
    const byPath = new Map(walkSteps(steps).map((p) => [p.path, p.step]));
    const at = (path: string) => byPath.get(path)!;
    const nextOf = (path: string) => {
      const next = stepAfter(steps, at(path).id);
      return next === null ? null : walkSteps(steps).find((p) => p.step.id === next.id)!.path;
    };
    expect(nextOf('steps[0]')).toBe('steps[1]');
    expect(nextOf('steps[2].then[0]')).toBe('steps[2].then[1]');
    // The nested if is the last of its branch: after it, out two levels' worth to the step after the outer if.
    expect(nextOf('steps[2].then[2].else[0]')).toBe('steps[3]');
    expect(nextOf('steps[2].else[1]')).toBe('steps[3]');
    expect(nextOf('steps[2]')).toBe('steps[3]');
    expect(nextOf('steps[3]')).toBeNull();
    expect(stepAfter(steps, 'stp_gone')).toBeNull();
    const outer = at('steps[2]') as Extract<Step, { kind: 'if' }>;
    expect(enterBranch(steps, outer, 'then')!.id).toBe(at('steps[2].then[0]').id);
    const inner = at('steps[2].then[2]') as Extract<Step, { kind: 'if' }>;
    // An empty then goes on after the if.
    expect(enterBranch(steps, inner, 'then')!.id).toBe(at('steps[3]').id);
    expect(enterBranch(steps, inner, 'else')!.id).toBe(at('steps[2].then[2].else[0]').id);
  });
});
