import { createContext, useContext, useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import {
  branchLabel,
  CONDITION_LABELS,
  CONDITIONS,
  ENDS_AT_REPLY,
  formatHours,
  STEP_KINDS,
  stepKindLabel,
  VARIANT_LETTERS,
  VARIANTS_MAX,
} from '../../../shared/steps.js';
import { LEAD_TAGS, type StepKind } from '../../../shared/types.js';
import type { FieldErrors } from './useAgentDraft.js';
import {
  appendStep,
  type Branch,
  canAddVariant,
  DEPTH_MAX,
  type EditEmail,
  type EditIf,
  type EditStep,
  type ListRef,
  moveStep,
  newStep,
  placeEdit,
  removeStep,
  siblingsOf,
  STEPS_MAX,
  updateStep,
  variantTexts,
} from './sequence.js';
import './sequence.css';

const NOTE_MAX = 300;
const TEXT_MAX = 8000;
const SUBJECT_MAX = 200;
const EMAIL_TEXT_MAX = 20000;

/** What an `if` step is called where a kind is named alone (the legend; the add menu). */
const kindName = (kind: StepKind): string => (kind === 'if' ? 'Branch on a condition' : stepKindLabel(kind));

/** The fields each kind shows on its own; an error about any other field shows at the step itself. */
function ownFields(step: EditStep): Set<string> {
  switch (step.kind) {
    case 'invite':
      return new Set(['note', ...step.variants.map((_, i) => `variants[${i}].note`)]);
    case 'message':
      return new Set(['text', ...step.variants.map((_, i) => `variants[${i}].text`)]);
    case 'inmail':
      return new Set(['subject', 'text']);
    case 'email':
      return new Set(['subject', 'text', ...step.variants.flatMap((_, i) => [`variants[${i}].subject`, `variants[${i}].text`])]);
    case 'wait':
      return new Set(['hours']);
    case 'if':
      return new Set(['condition', 'withinHours', 'tags']);
    default:
      return new Set();
  }
}

/** The first field a new step of a kind has, to put the cursor in. */
const firstField = (kind: StepKind): string | null =>
  ({ invite: 'note', message: 'text', inmail: 'subject', email: 'subject', wait: 'hours', if: 'condition' })[kind as string] ?? null;

interface Editor {
  id: string;
  hintId: string;
  numbers: ReadonlyMap<string, { number: number; depth: number }>;
  total: number;
  errors: FieldErrors['steps'];
  /** The DOM id of a step's field (`''`: the step's fieldset). */
  domId: (key: string, field: string) => string;
  edit: (key: string, field: string, patch: (s: EditStep) => EditStep) => void;
  remove: (key: string) => void;
  move: (key: string, delta: -1 | 1) => void;
  add: (where: ListRef, kind: StepKind) => void;
  /** Focus the first of these elements that exists and is enabled, once the change is on screen. */
  focus: (...ids: string[]) => void;
}
const EditorContext = createContext<Editor | null>(null);
const useEditor = (): Editor => {
  const editor = useContext(EditorContext);
  if (!editor) throw new Error('A step needs its SequenceFields above it.');
  return editor;
};

/**
 * The agent's sequence as a tree of steps: each step in its own group with its number, kind,
 * fields and buttons to move or remove it; an `if` with its two branches side by side under it;
 * invitations and messages with their A/B variants side by side; and under every list a way to
 * add a step. Errors the server names (`steps[2].then[0].text`) show at the field they name.
 * Only this component and its model (sequence.ts) know the sequence's shape.
 */
export function SequenceFields({
  hintId,
  steps,
  onChange,
  errors,
  sequenceErrors,
  onEdited,
}: {
  /** The id of the placeholder hint the text fields point to. */
  hintId: string;
  steps: EditStep[];
  onChange: (steps: EditStep[]) => void;
  errors: FieldErrors['steps'];
  /** Errors about the sequence as a whole (too many steps). */
  sequenceErrors: string[];
  /** A field was edited: what was said about it no longer holds. */
  onEdited: (key: string, field: string) => void;
}) {
  const id = useId();
  const [focusIds, setFocusIds] = useState<string[] | null>(null);
  useEffect(() => {
    if (!focusIds) return;
    for (const target of focusIds) {
      const el = document.getElementById(target) as HTMLButtonElement | null;
      if (el && !el.disabled) {
        el.focus();
        break;
      }
    }
    setFocusIds(null);
  }, [focusIds]);

  const placed = useMemo(() => placeEdit(steps), [steps]);
  // After a refused save, the cursor goes to the first field named, in the order of the steps.
  // Only a new set of errors moves it, not each edit of the tree: placed is read for the order.
  // biome-ignore lint/correctness/useExhaustiveDependencies: see above
  useEffect(() => {
    const first = placed.find((p) => errors[p.step.key] && Object.keys(errors[p.step.key] ?? {}).length > 0);
    if (!first) return;
    const field = Object.keys(errors[first.step.key] ?? {})[0] ?? '';
    const byField = document.getElementById(domIdOf(id, first.step.key, field));
    (byField ?? document.getElementById(domIdOf(id, first.step.key, '')))?.focus();
  }, [errors, id]);

  const editor: Editor = {
    id,
    hintId,
    numbers: new Map(placed.map((p) => [p.step.key, { number: p.number, depth: p.depth }])),
    total: placed.length,
    errors,
    domId: (key, field) => domIdOf(id, key, field),
    edit: (key, field, patch) => {
      onEdited(key, field);
      onChange(updateStep(steps, key, patch));
    },
    remove: (key) => {
      const at = siblingsOf(steps, key);
      const next = at ? (at.list[at.index + 1] ?? at.list[at.index - 1]) : undefined;
      onChange(removeStep(steps, key));
      setFocusIds([...(next ? [domIdOf(id, next.key, '')] : []), `${id}-add-kind`]);
    },
    move: (key, delta) => {
      onChange(moveStep(steps, key, delta));
      setFocusIds([domIdOf(id, key, delta < 0 ? 'up' : 'down'), domIdOf(id, key, delta < 0 ? 'down' : 'up'), domIdOf(id, key, '')]);
    },
    add: (where, kind) => {
      const step = newStep(kind);
      onChange(appendStep(steps, where, step));
      const field = firstField(kind);
      setFocusIds([...(field ? [domIdOf(id, step.key, field)] : []), domIdOf(id, step.key, '')]);
    },
    focus: (...ids) => setFocusIds(ids),
  };

  return (
    <EditorContext.Provider value={editor}>
      <section className="s-editor" aria-labelledby={`${id}-h`}>
        <div className="o-row-between">
          <h2 id={`${id}-h`}>Sequence</h2>
          <span className="o-muted">
            {placed.length} of {STEPS_MAX} steps
          </span>
        </div>
        <p className="o-hint">
          Steps run in order. After the branch an if took, the lead goes on with the step after the if. A reply ends the lead&apos;s sequence: the inbox takes
          over.
        </p>
        {sequenceErrors.map((text) => (
          <p key={text} className="s-error">
            {text}
          </p>
        ))}
        <StepList list={steps} where={null} depth={1} listName="the sequence" addId={`${id}-add`} />
      </section>
    </EditorContext.Provider>
  );
}

const domIdOf = (id: string, key: string, field: string): string => (field === '' ? `${id}-${key}` : `${id}-${key}-${field.replace(/[^\w-]/g, '_')}`);

function StepList({ list, where, depth, listName, addId }: { list: EditStep[]; where: ListRef; depth: number; listName: string; addId?: string }) {
  return (
    <>
      {list.length > 0 ? (
        <ol className="s-list">
          {list.map((step, i) => (
            <StepItem key={step.key} step={step} first={i === 0} last={i === list.length - 1} depth={depth} />
          ))}
        </ol>
      ) : null}
      <AddStep where={where} listName={listName} {...(addId ? { idBase: addId } : {})} />
    </>
  );
}

function AddStep({ where, listName, idBase }: { where: ListRef; listName: string; idBase?: string }) {
  const editor = useEditor();
  const ownId = useId();
  const base = idBase ?? ownId;
  const [kind, setKind] = useState<StepKind>('message');
  const full = editor.total >= STEPS_MAX;
  return (
    <div className="s-add">
      <label htmlFor={`${base}-kind`} className="sr-only">
        Kind of step to add to {listName}
      </label>
      <select id={`${base}-kind`} className="o-select" value={kind} onChange={(e) => setKind(e.target.value as StepKind)} disabled={full}>
        {STEP_KINDS.map((k) => (
          <option key={k} value={k}>
            {kindName(k)}
          </option>
        ))}
      </select>
      <button type="button" className="o-button" disabled={full} aria-label={`Add step to ${listName}`} onClick={() => editor.add(where, kind)}>
        Add step
      </button>
      {full ? <span className="o-hint">A sequence holds at most {STEPS_MAX} steps.</span> : null}
    </div>
  );
}

/** An error about a field, under it; `aria-describedby` ties it to the field. */
function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} className="s-error">
      {text}
    </p>
  );
}

/** The props a field needs to show its label, error and (for texts) the placeholder hint. */
function useField(step: EditStep, field: string, text = false) {
  const editor = useEditor();
  const domId = editor.domId(step.key, field);
  const error = editor.errors[step.key]?.[field];
  const errId = `${domId}-err`;
  return {
    domId,
    error,
    errId,
    inputProps: {
      id: domId,
      'aria-invalid': error ? true : undefined,
      'aria-describedby': [error ? errId : null, text ? editor.hintId : null].filter(Boolean).join(' ') || undefined,
    },
  };
}

function TextField({
  step,
  field,
  label,
  value,
  max,
  multiline,
  onValue,
  hint,
}: {
  step: EditStep;
  field: string;
  label: string;
  value: string;
  max: number;
  multiline?: boolean;
  onValue: (v: string) => void;
  hint?: ReactNode;
}) {
  const { domId, error, errId, inputProps } = useField(step, field, true);
  return (
    <div className="o-field">
      <label htmlFor={domId}>{label}</label>
      {multiline ? (
        <textarea className="o-textarea" maxLength={max} value={value} onChange={(e) => onValue(e.target.value)} {...inputProps} />
      ) : (
        <input className="o-input" maxLength={max} value={value} onChange={(e) => onValue(e.target.value)} {...inputProps} />
      )}
      {hint}
      <FieldError id={errId} text={error} />
    </div>
  );
}

function HoursField({
  step,
  field,
  label,
  value,
  max,
  onValue,
}: {
  step: EditStep;
  field: string;
  label: string;
  value: string;
  max: number;
  onValue: (v: string) => void;
}) {
  const { domId, error, errId, inputProps } = useField(step, field);
  const hours = Number(value);
  return (
    <div className="o-field s-hours">
      <label htmlFor={domId}>{label}</label>
      <input
        className="o-input"
        type="number"
        inputMode="numeric"
        min={1}
        max={max}
        step={1}
        value={value}
        onChange={(e) => onValue(e.target.value)}
        {...inputProps}
      />
      <span className="o-hint">{value.trim() !== '' && Number.isInteger(hours) && hours > 0 ? formatHours(hours) : `1 to ${max} hours`}</span>
      <FieldError id={errId} text={error} />
    </div>
  );
}

/** An invitation's notes or a message's texts, A first, side by side, with a button to add the next letter. */
function VariantFields({ step, number }: { step: Extract<EditStep, { kind: 'invite' | 'message' }>; number: number }) {
  const editor = useEditor();
  const texts = variantTexts(step);
  const several = texts.length > 1;
  const noun = step.kind === 'invite' ? 'Note' : 'Text';
  const fieldOf = (v: number) => (v === 0 ? (step.kind === 'invite' ? 'note' : 'text') : `variants[${v - 1}].${step.kind === 'invite' ? 'note' : 'text'}`);
  const setText = (v: number, value: string) =>
    editor.edit(step.key, fieldOf(v), (s) => {
      if (s.kind !== 'invite' && s.kind !== 'message') return s;
      if (v > 0) return { ...s, variants: s.variants.map((t, i) => (i === v - 1 ? value : t)) };
      return s.kind === 'invite' ? { ...s, note: value } : { ...s, text: value };
    });
  const addVariant = () => {
    editor.edit(step.key, 'variants', (s) => (s.kind === 'invite' || s.kind === 'message' ? { ...s, variants: [...s.variants, ''] } : s));
    editor.focus(editor.domId(step.key, fieldOf(texts.length)));
  };
  const removeVariant = (v: number) => {
    editor.edit(step.key, fieldOf(v), (s) => (s.kind === 'invite' || s.kind === 'message' ? { ...s, variants: s.variants.filter((_, i) => i !== v - 1) } : s));
    editor.focus(editor.domId(step.key, fieldOf(v - 1)));
  };
  const next = VARIANT_LETTERS[texts.length];
  return (
    <>
      <div className={several ? 's-variants s-variants-several' : 's-variants'}>
        {texts.map((text, v) => {
          const letter = VARIANT_LETTERS[v] as string;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a variant is its letter, which is its place
            <div key={v} className="s-variant">
              <TextField
                step={step}
                field={fieldOf(v)}
                label={several ? `${noun}, variant ${letter}` : step.kind === 'invite' ? 'Note' : 'Text'}
                value={text}
                max={step.kind === 'invite' ? NOTE_MAX : TEXT_MAX}
                multiline
                onValue={(value) => setText(v, value)}
                hint={
                  step.kind === 'invite' ? (
                    <span className="o-hint">
                      {text.length}/{NOTE_MAX} characters{text.trim() === '' ? ': sent without a note' : ''}
                    </span>
                  ) : null
                }
              />
              {v > 0 ? (
                <button type="button" className="o-button s-small" aria-label={`Remove variant ${letter} of step ${number}`} onClick={() => removeVariant(v)}>
                  Remove variant {letter}
                </button>
              ) : null}
            </div>
          );
        })}
      </div>
      <div className="o-row">
        {next && canAddVariant(step) ? (
          <button
            type="button"
            className="o-button s-small"
            id={editor.domId(step.key, 'add-variant')}
            aria-label={`Add variant ${next} to step ${number}`}
            onClick={addVariant}
          >
            Add variant {next}
          </button>
        ) : (
          <span className="o-hint">Variants A to {VARIANT_LETTERS[VARIANT_LETTERS.length - 1]}: the most a step takes.</span>
        )}
        {several ? <span className="o-hint">Each lead gets one variant, drawn evenly the first time the step runs, and keeps it.</span> : null}
      </div>
    </>
  );
}

/** An email's subject and text, then its variants B to E side by side, each with its own text and, if it gives one, its own subject. */
function EmailFields({ step, number }: { step: EditEmail; number: number }) {
  const editor = useEditor();
  const several = step.variants.length > 0;
  const setVariant = (v: number, field: 'subject' | 'text', value: string) =>
    editor.edit(step.key, v === 0 ? field : `variants[${v - 1}].${field}`, (s) => {
      if (s.kind !== 'email') return s;
      if (v === 0) return { ...s, [field]: value };
      return { ...s, variants: s.variants.map((x, i) => (i === v - 1 ? { ...x, [field]: value } : x)) };
    });
  const rows = [{ subject: step.subject, text: step.text }, ...step.variants];
  const next = VARIANT_LETTERS[rows.length];
  const addVariant = () => {
    editor.edit(step.key, 'variants', (s) => (s.kind === 'email' ? { ...s, variants: [...s.variants, { subject: '', text: '' }] } : s));
    editor.focus(editor.domId(step.key, `variants[${rows.length - 1}].text`));
  };
  const removeVariant = (v: number) => {
    editor.edit(step.key, `variants[${v - 1}].text`, (s) => (s.kind === 'email' ? { ...s, variants: s.variants.filter((_, i) => i !== v - 1) } : s));
    editor.focus(editor.domId(step.key, v === 1 ? 'text' : `variants[${v - 2}].text`));
  };
  return (
    <>
      <div className={several ? 's-variants s-variants-several' : 's-variants'}>
        {rows.map((row, v) => {
          const letter = VARIANT_LETTERS[v] as string;
          const suffix = several ? `, variant ${letter}` : '';
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: a variant is its letter, which is its place
            <div key={v} className="s-variant">
              <TextField
                step={step}
                field={v === 0 ? 'subject' : `variants[${v - 1}].subject`}
                label={v === 0 ? `Subject${suffix}` : `Subject${suffix} (blank: variant A's)`}
                value={row.subject}
                max={SUBJECT_MAX}
                onValue={(value) => setVariant(v, 'subject', value)}
              />
              <TextField
                step={step}
                field={v === 0 ? 'text' : `variants[${v - 1}].text`}
                label={`Text${suffix}`}
                value={row.text}
                max={EMAIL_TEXT_MAX}
                multiline
                onValue={(value) => setVariant(v, 'text', value)}
              />
              {v > 0 ? (
                <button type="button" className="o-button s-small" aria-label={`Remove variant ${letter} of step ${number}`} onClick={() => removeVariant(v)}>
                  Remove variant {letter}
                </button>
              ) : null}
            </div>
          );
        })}
      </div>
      <div className="o-row">
        {next && rows.length < VARIANTS_MAX ? (
          <button
            type="button"
            className="o-button s-small"
            id={editor.domId(step.key, 'add-variant')}
            aria-label={`Add variant ${next} to step ${number}`}
            onClick={addVariant}
          >
            Add variant {next}
          </button>
        ) : (
          <span className="o-hint">Variants A to {VARIANT_LETTERS[VARIANT_LETTERS.length - 1]}: the most a step takes.</span>
        )}
      </div>
      <p className="o-hint">
        Plain text from the lead&apos;s mailbox to the lead&apos;s email, with an unsubscribe line added below it; skipped for a lead without an address, or one
        that unsubscribed or bounced.
      </p>
    </>
  );
}

function StepBody({ step, number }: { step: EditStep; number: number }) {
  const editor = useEditor();
  const set = (field: string, patch: Partial<EditStep>) => editor.edit(step.key, field, (s) => ({ ...s, ...patch }) as EditStep);
  switch (step.kind) {
    case 'invite':
    case 'message':
      return <VariantFields step={step} number={number} />;
    case 'inmail':
      return (
        <>
          <TextField step={step} field="subject" label="Subject" value={step.subject} max={SUBJECT_MAX} onValue={(v) => set('subject', { subject: v })} />
          <TextField step={step} field="text" label="Text" value={step.text} max={TEXT_MAX} multiline onValue={(v) => set('text', { text: v })} />
          <p className="o-hint">Sent through Sales Navigator, to a lead who need not be a connection; skipped on an account without it.</p>
        </>
      );
    case 'email':
      return <EmailFields step={step} number={number} />;
    case 'wait':
      return <HoursField step={step} field="hours" label="Hours to wait" value={step.hours} max={720} onValue={(v) => set('hours', { hours: v })} />;
    case 'if':
      return <IfFields step={step} />;
    case 'visit':
      return <p className="o-hint">Views the lead&apos;s profile; LinkedIn tells the lead.</p>;
    case 'like_post':
      return <p className="o-hint">Likes the lead&apos;s latest post; skipped when there is none.</p>;
    case 'withdraw':
      return <p className="o-hint">Withdraws the invitation if it is still pending.</p>;
  }
}

function IfFields({ step }: { step: EditIf }) {
  const editor = useEditor();
  const { domId, error, errId, inputProps } = useField(step, 'condition');
  return (
    <div className="o-row s-if-fields">
      <div className="o-field">
        <label htmlFor={domId}>Condition</label>
        <select
          className="o-select"
          value={step.condition}
          onChange={(e) => editor.edit(step.key, 'condition', (s) => ({ ...s, condition: e.target.value as EditIf['condition'] }) as EditStep)}
          {...inputProps}
        >
          {CONDITIONS.map((c) => (
            <option key={c} value={c}>
              {CONDITION_LABELS[c].option}
            </option>
          ))}
        </select>
        <FieldError id={errId} text={error} />
      </div>
      {step.condition === 'tagged' ? <TagsField step={step} /> : null}
      <HoursField
        step={step}
        field="withinHours"
        label="Within (hours)"
        value={step.withinHours}
        max={2160}
        onValue={(v) => editor.edit(step.key, 'withinHours', (s) => ({ ...s, withinHours: v }) as EditStep)}
      />
    </div>
  );
}

/** The tags a `tagged` condition waits for: any of them takes `then`. */
function TagsField({ step }: { step: EditIf }) {
  const editor = useEditor();
  const { domId, error, errId } = useField(step, 'tags');
  const toggle = (tag: (typeof LEAD_TAGS)[number], on: boolean) =>
    editor.edit(step.key, 'tags', (s) =>
      s.kind === 'if' ? { ...s, tags: on ? LEAD_TAGS.filter((t) => t === tag || s.tags.includes(t)) : s.tags.filter((t) => t !== tag) } : s,
    );
  return (
    <fieldset id={domId} tabIndex={-1} className="s-tags" aria-invalid={error ? true : undefined} aria-describedby={error ? errId : undefined}>
      <legend>Tags (any of them)</legend>
      {LEAD_TAGS.map((tag) => {
        const tagId = `${domId}-${tag.replace(/\W/g, '_')}`;
        return (
          <span key={tag} className="o-row">
            <input id={tagId} type="checkbox" checked={step.tags.includes(tag)} onChange={(e) => toggle(tag, e.target.checked)} />
            <label htmlFor={tagId}>{tag}</label>
          </span>
        );
      })}
      <FieldError id={errId} text={error} />
    </fieldset>
  );
}

const MOVES = [
  { delta: -1, word: 'up', label: 'Up' },
  { delta: 1, word: 'down', label: 'Down' },
] as const;

function StepItem({ step, first, last, depth }: { step: EditStep; first: boolean; last: boolean; depth: number }) {
  const editor = useEditor();
  const number = editor.numbers.get(step.key)?.number ?? 0;
  const own = ownFields(step);
  const stepErrors = Object.entries(editor.errors[step.key] ?? {}).filter(([field]) => !own.has(field));
  const fieldsetId = editor.domId(step.key, '');
  return (
    <li className={`s-step s-kind-${step.kind}`}>
      <fieldset id={fieldsetId} tabIndex={-1} className={stepErrors.length > 0 ? 's-card s-card-invalid' : 's-card'}>
        <legend>
          Step {number}: {kindName(step.kind)}
        </legend>
        {stepErrors.map(([field, text]) => (
          <p key={field} className="s-error">
            {text}
          </p>
        ))}
        <StepBody step={step} number={number} />
        <div className="s-tools">
          {MOVES.map(({ delta, word, label }) => (
            <button
              key={word}
              type="button"
              id={editor.domId(step.key, word)}
              className="o-button s-small"
              disabled={delta < 0 ? first : last}
              aria-label={`Move step ${number} ${word}`}
              onClick={() => editor.move(step.key, delta)}
            >
              {label}
            </button>
          ))}
          <button type="button" className="o-button s-small" aria-label={`Remove step ${number}`} onClick={() => editor.remove(step.key)}>
            Remove
          </button>
        </div>
      </fieldset>
      {step.kind === 'if' ? <Branches step={step} number={number} depth={depth} /> : null}
    </li>
  );
}

function Branches({ step, number, depth }: { step: EditIf; number: number; depth: number }) {
  const hours = Number(step.withinHours);
  if (depth >= DEPTH_MAX) {
    return (
      <p className="o-hint s-branches-none">
        Steps nest at most {DEPTH_MAX} deep, so this if holds no steps: it waits for its condition, then the lead goes on with the step after it.
      </p>
    );
  }
  return (
    <div className="s-branches">
      {(['then', 'else'] as const).map((branch) => (
        <BranchList key={branch} step={step} branch={branch} number={number} depth={depth + 1} hours={hours} />
      ))}
    </div>
  );
}

function BranchList({ step, branch, number, depth, hours }: { step: EditIf; branch: Branch; number: number; depth: number; hours: number }) {
  const tags = step.condition === 'tagged' ? step.tags : undefined;
  const title = `${branch === 'then' ? 'Then' : 'Else'} · ${branchLabel(step.condition, Number.isFinite(hours) && hours > 0 ? hours : Number.NaN, branch, tags)}`;
  const list = step[branch];
  const name = `step ${number}, ${branchLabel(step.condition, hours, branch, tags).toLowerCase()}`;
  return (
    // The group's name carries the step's number, which the visible title leaves to the layout.
    <div role="group" aria-label={`Step ${number}: ${title}`} className={`s-branch s-branch-${branch}`}>
      <p className="s-branch-title">{title}</p>
      {ENDS_AT_REPLY.has(step.condition) && branch === 'then' ? (
        <p className="o-hint">A reply ends the lead&apos;s sequence and the inbox takes over, so steps here do not run.</p>
      ) : null}
      {list.length === 0 ? <p className="o-hint">No steps: the lead goes on with the step after the if.</p> : null}
      <StepList list={list} where={{ ifKey: step.key, branch }} depth={depth} listName={name} />
    </div>
  );
}
