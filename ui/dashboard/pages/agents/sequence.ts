// biome-ignore-all lint/suspicious/noThenProperty: an if step's branches are named then and else, as the API names them; these objects are never awaited.
/**
 * The sequence being edited, as a tree the editor changes step by step, and its way to and from
 * the API: saved steps in, `steps` (or, for an agent written as a note and messages that still
 * fits that shape, `connectionNote` and `messages`) out, and the API's error paths back to the
 * step and field they name. Pure: no React.
 */
import { type Condition, VARIANTS_MAX } from '../../../shared/steps.js';
import type { AgentStep, LeadTag, StepInput, StepKind } from '../../../shared/types.js';

/** Limits the server checks too; here they only grey out what cannot be added. */
export const STEPS_MAX = 25;
export const DEPTH_MAX = 3;
export const MESSAGES_MAX = 10;

interface Keyed {
  /** Stable while editing: the saved id, or a fresh key for a new step. */
  key: string;
  /** The saved step's id, sent back so leads at it stay there. */
  id?: string;
}
/** Numbers stay text while typed, so a cleared field is not a zero; the server judges them on save. */
export type EditStep = Keyed &
  /** A kind with no fields the editor shows (a visit); fields it does not show are kept as saved. */
  (
    | { kind: Exclude<StepKind, 'invite' | 'message' | 'inmail' | 'email' | 'wait' | 'if'>; fields?: Record<string, unknown> }
    | { kind: 'invite'; note: string; variants: string[] }
    | { kind: 'message'; text: string; variants: string[] }
    | { kind: 'inmail'; subject: string; text: string }
    /** A variant's blank subject means the step's own (the API leaves it out). */
    | { kind: 'email'; subject: string; text: string; variants: EmailVariant[] }
    | { kind: 'wait'; hours: string }
    /** `tags` is kept while another condition is chosen, and sent only with `tagged`. */
    | { kind: 'if'; condition: Condition; tags: LeadTag[]; withinHours: string; then: EditStep[]; else: EditStep[] }
  );
export type EditIf = Extract<EditStep, { kind: 'if' }>;
export type EditEmail = Extract<EditStep, { kind: 'email' }>;
export interface EmailVariant {
  subject: string;
  text: string;
}
export type Branch = 'then' | 'else';

let counter = 0;
const freshKey = () => `new${++counter}`;

export function newStep(kind: StepKind): EditStep {
  const key = freshKey();
  switch (kind) {
    case 'invite':
      return { key, kind, note: '', variants: [] };
    case 'message':
      return { key, kind, text: '', variants: [] };
    case 'inmail':
      return { key, kind, subject: '', text: '' };
    case 'email':
      return { key, kind, subject: '', text: '', variants: [] };
    case 'wait':
      return { key, kind, hours: '24' };
    case 'if':
      return { key, kind, condition: 'accepted', tags: [], withinHours: '168', then: [], else: [] };
    default:
      return { key, kind };
  }
}

/** A new agent's sequence: invite, then a message once accepted within 21 days (the engine's default invitation timeout), else withdraw. */
export function starterSteps(): EditStep[] {
  return [
    { key: freshKey(), kind: 'invite', note: 'Hi {{firstName|there}}, ', variants: [] },
    {
      key: freshKey(),
      kind: 'if',
      condition: 'accepted',
      tags: [],
      withinHours: '504',
      then: [
        { key: freshKey(), kind: 'wait', hours: '24' },
        { key: freshKey(), kind: 'message', text: 'Thanks for connecting, {{firstName|there}}!', variants: [] },
      ],
      else: [{ key: freshKey(), kind: 'withdraw' }],
    },
  ];
}

export function fromSaved(steps: readonly AgentStep[]): EditStep[] {
  return steps.map((s): EditStep => {
    const base = { key: s.id, id: s.id };
    switch (s.kind) {
      case 'invite':
        return { ...base, kind: 'invite', note: s.note ?? '', variants: (s.variants ?? []).map((v) => v.note ?? '') };
      case 'message':
        return { ...base, kind: 'message', text: s.text, variants: (s.variants ?? []).map((v) => v.text) };
      case 'inmail':
        return { ...base, kind: 'inmail', subject: s.subject, text: s.text };
      case 'email':
        return {
          ...base,
          kind: 'email',
          subject: s.subject,
          text: s.text,
          variants: (s.variants ?? []).map((v) => ({ subject: v.subject ?? '', text: v.text })),
        };
      case 'wait':
        return { ...base, kind: 'wait', hours: String(s.hours) };
      case 'if':
        return {
          ...base,
          kind: 'if',
          condition: s.condition,
          tags: [...(s.tags ?? [])],
          withinHours: String(s.withinHours),
          then: fromSaved(s.then),
          else: fromSaved(s.else),
        };
      default: {
        const { id: _id, kind, ...fields } = s;
        return { ...base, kind, ...(Object.keys(fields).length > 0 ? { fields } : {}) };
      }
    }
  });
}

/** A typed number, or null for a blank one (which the server then names as the field to fix). */
// NaN goes out as null, and the server's error names the field, as for any other bad value.
const numberOf = (text: string): number => (text.trim() === '' ? Number.NaN : Number(text));

export function toInput(steps: readonly EditStep[]): StepInput[] {
  return steps.map((s): StepInput => {
    const id = s.id ? { id: s.id } : {};
    switch (s.kind) {
      case 'invite':
        return {
          ...id,
          kind: 'invite',
          note: s.note.trim() === '' ? null : s.note,
          ...(s.variants.length ? { variants: s.variants.map((v) => ({ note: v.trim() === '' ? null : v })) } : {}),
        };
      case 'message':
        return { ...id, kind: 'message', text: s.text, ...(s.variants.length ? { variants: s.variants.map((v) => ({ text: v })) } : {}) };
      case 'inmail':
        return { ...id, kind: 'inmail', subject: s.subject, text: s.text };
      case 'email':
        return {
          ...id,
          kind: 'email',
          subject: s.subject,
          text: s.text,
          ...(s.variants.length ? { variants: s.variants.map((v) => ({ text: v.text, ...(v.subject.trim() === '' ? {} : { subject: v.subject }) })) } : {}),
        };
      case 'wait':
        return { ...id, kind: 'wait', hours: numberOf(s.hours) };
      case 'if':
        return {
          ...id,
          kind: 'if',
          condition: s.condition,
          ...(s.condition === 'tagged' ? { tags: s.tags } : {}),
          withinHours: numberOf(s.withinHours),
          then: toInput(s.then),
          else: toInput(s.else),
        };
      default:
        return { ...id, kind: s.kind, ...s.fields };
    }
  });
}

/**
 * The saved agent's ids on the tree that was sent: the server answers with the same steps in the
 * same places, so each step keeps its key (and focus stays where it was) and gains its id. If
 * the answer has another shape, it replaces the tree.
 */
export function withSavedIds(steps: readonly EditStep[], saved: readonly AgentStep[]): EditStep[] {
  const same = (a: readonly EditStep[], b: readonly AgentStep[]): boolean =>
    a.length === b.length &&
    a.every((s, i) => {
      const t = b[i] as AgentStep;
      return s.kind === t.kind && (s.kind !== 'if' || (t.kind === 'if' && same(s.then, t.then) && same(s.else, t.else)));
    });
  if (!same(steps, saved)) return fromSaved(saved);
  const copy = (a: readonly EditStep[], b: readonly AgentStep[]): EditStep[] =>
    a.map((s, i) => {
      const t = b[i] as AgentStep;
      if (s.kind === 'if' && t.kind === 'if') return { ...s, id: t.id, then: copy(s.then, t.then), else: copy(s.else, t.else) };
      return { ...s, id: t.id };
    });
  return copy(steps, saved);
}

/* Changes by key, anywhere in the tree. Each returns a new tree. */

function mapLists(steps: readonly EditStep[], fn: (list: EditStep[]) => EditStep[]): EditStep[] {
  return fn(steps.map((s) => (s.kind === 'if' ? { ...s, then: mapLists(s.then, fn), else: mapLists(s.else, fn) } : s)));
}

export function updateStep(steps: readonly EditStep[], key: string, patch: (s: EditStep) => EditStep): EditStep[] {
  return mapLists(steps, (list) => list.map((s) => (s.key === key ? patch(s) : s)));
}

export function removeStep(steps: readonly EditStep[], key: string): EditStep[] {
  return mapLists(steps, (list) => list.filter((s) => s.key !== key));
}

/** Moves a step up (-1) or down (+1) among its siblings; at the edge it stays. */
export function moveStep(steps: readonly EditStep[], key: string, delta: -1 | 1): EditStep[] {
  return mapLists(steps, (list) => {
    const i = list.findIndex((s) => s.key === key);
    const j = i + delta;
    if (i < 0 || j < 0 || j >= list.length) return list;
    const next = [...list];
    [next[i], next[j]] = [next[j] as EditStep, next[i] as EditStep];
    return next;
  });
}

/** Where a new step goes: the end of the sequence, or the end of a branch of an `if`. */
export type ListRef = null | { ifKey: string; branch: Branch };

export function appendStep(steps: readonly EditStep[], where: ListRef, step: EditStep): EditStep[] {
  if (where === null) return [...steps, step];
  return updateStep(steps, where.ifKey, (s) => (s.kind === 'if' ? { ...s, [where.branch]: [...s[where.branch], step] } : s));
}

/** The step list holding `key`, and its place there. */
export function siblingsOf(steps: readonly EditStep[], key: string): { list: readonly EditStep[]; index: number } | null {
  const i = steps.findIndex((s) => s.key === key);
  if (i >= 0) return { list: steps, index: i };
  for (const s of steps) {
    if (s.kind !== 'if') continue;
    const found = siblingsOf(s.then, key) ?? siblingsOf(s.else, key);
    if (found) return found;
  }
  return null;
}

export const countSteps = (steps: readonly EditStep[]): number =>
  steps.reduce((n, s) => n + 1 + (s.kind === 'if' ? countSteps(s.then) + countSteps(s.else) : 0), 0);

/** Every step in document order with its API path and number: the same numbering as the preview and the funnel. */
export function placeEdit(steps: readonly EditStep[]): { step: EditStep; path: string; number: number; depth: number }[] {
  const out: { step: EditStep; path: string; number: number; depth: number }[] = [];
  const walk = (list: readonly EditStep[], prefix: string, depth: number) =>
    list.forEach((step, i) => {
      const path = `${prefix}[${i}]`;
      out.push({ step, path, number: out.length + 1, depth });
      if (step.kind === 'if') {
        walk(step.then, `${path}.then`, depth + 1);
        walk(step.else, `${path}.else`, depth + 1);
      }
    });
  walk(steps, 'steps', 1);
  return out;
}

/** The variants a step shows side by side: its own text (A) then its alternatives. */
export const variantTexts = (s: Extract<EditStep, { kind: 'invite' | 'message' }>): string[] => [s.kind === 'invite' ? s.note : s.text, ...s.variants];
export const canAddVariant = (s: Extract<EditStep, { kind: 'invite' | 'message' }>): boolean => s.variants.length + 1 < VARIANTS_MAX;

export interface SimpleShape {
  connectionNote: string | null;
  messages: { text: string; delayHours: number }[];
}

/**
 * The tree as a note and messages, if it still has that shape: an invite without variants, then
 * `if accepted` within `withinHours` (the engine's invitation timeout, which such an agent
 * follows), whose `then` is messages each after at most one wait, and whose `else` is one
 * withdrawal. Null when it no longer fits, and the agent is then saved as steps.
 */
export function asSimpleShape(steps: readonly EditStep[], withinHours: number): SimpleShape | null {
  const [invite, branch, ...rest] = steps;
  if (!invite || !branch || rest.length > 0 || invite.kind !== 'invite' || invite.variants.length > 0) return null;
  if (branch.kind !== 'if' || branch.condition !== 'accepted' || numberOf(branch.withinHours) !== withinHours) return null;
  if (branch.else.length !== 1 || branch.else[0]?.kind !== 'withdraw') return null;
  const messages: SimpleShape['messages'] = [];
  let wait: number | null = null;
  for (const s of branch.then) {
    if (s.kind === 'wait') {
      const hours = numberOf(s.hours);
      if (wait !== null || !Number.isInteger(hours) || hours < 1) return null;
      wait = hours;
    } else if (s.kind === 'message' && s.variants.length === 0) {
      messages.push({ text: s.text, delayHours: wait ?? 0 });
      wait = null;
    } else return null;
  }
  if (wait !== null || messages.length > MESSAGES_MAX) return null;
  return { connectionNote: invite.note.trim() === '' ? null : invite.note, messages };
}

/** Where an error path lands: a step (by key) and one of its fields (`''` for the step as a whole). */
export interface FieldTarget {
  key: string;
  field: string;
}

/** For each path a save can be refused at, the step and field it names. */
export function stepTargets(steps: readonly EditStep[]): Map<string, FieldTarget> {
  return new Map(placeEdit(steps).map(({ step, path }) => [path, { key: step.key, field: '' }]));
}

/** The same for a save as a note and messages: `connectionNote` is the invite's note, `messages[1]` the second message. */
export function simpleTargets(steps: readonly EditStep[]): Map<string, FieldTarget> {
  const out = new Map<string, FieldTarget>();
  const [invite, branch] = steps;
  if (invite) out.set('connectionNote', { key: invite.key, field: 'note' });
  if (branch?.kind !== 'if') return out;
  let wait: EditStep | null = null;
  let i = 0;
  for (const s of branch.then) {
    if (s.kind === 'wait') wait = s;
    else {
      out.set(`messages[${i}]`, { key: s.key, field: '' });
      out.set(`messages[${i}].text`, { key: s.key, field: 'text' });
      out.set(`messages[${i}].delayHours`, wait ? { key: wait.key, field: 'hours' } : { key: s.key, field: '' });
      wait = null;
      i += 1;
    }
  }
  return out;
}

/** The step and field an error path names: the longest known path it starts with, and the rest as the field. */
export function resolveField(targets: ReadonlyMap<string, FieldTarget>, path: string): FieldTarget | null {
  let best: string | null = null;
  for (const p of targets.keys()) {
    const under = path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`);
    if (under && (best === null || p.length > best.length)) best = p;
  }
  if (best === null) return null;
  const target = targets.get(best) as FieldTarget;
  const rest = path.slice(best.length).replace(/^\./, '');
  return { key: target.key, field: [target.field, rest].filter(Boolean).join('.') };
}

/**
 * What an error message says about one field. The server names each field it refuses at the start
 * of its part of the message (`steps[2].text: unknown placeholder …; steps[4].hours: …`).
 */
export function messageAbout(message: string, field: string): string | null {
  const starts = [...message.matchAll(/(?:^|; )([A-Za-z][\w.[\]]*): /g)];
  for (const [n, m] of starts.entries()) {
    if (m[1] !== field) continue;
    const from = (m.index ?? 0) + m[0].length;
    const to = starts[n + 1]?.index ?? message.length;
    const text = message.slice(from, to).trim();
    const sentence = text.charAt(0).toUpperCase() + text.slice(1);
    return sentence.endsWith('.') ? sentence : `${sentence}.`;
  }
  return null;
}
