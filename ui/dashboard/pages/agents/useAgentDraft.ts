import { useEffect, useRef, useState } from 'react';
import { newIdempotencyKey, useTool, useToolMutation } from '../../../shared/hooks.js';
import type { ToolError } from '../../../shared/seam.js';
import type { Agent } from '../../../shared/types.js';
import { navigate } from '../../router.js';
import {
  asSimpleShape,
  type EditStep,
  type FieldTarget,
  fromSaved,
  messageAbout,
  resolveField,
  simpleTargets,
  starterSteps,
  stepTargets,
  toInput,
  withSavedIds,
} from './sequence.js';

export interface Draft {
  name: string;
  accountId: string;
  steps: EditStep[];
}

/** A refused save, placed: at a step's field, at the name or account, or at the sequence as a whole. */
export interface FieldErrors {
  /** By step key, then by field (`text`, `variants[0].note`, `hours`; `''` for the step itself). */
  steps: Record<string, Record<string, string>>;
  top: Partial<Record<'name' | 'accountId', string>>;
  sequence: string[];
}
export const NO_ERRORS: FieldErrors = { steps: {}, top: {}, sequence: [] };

const fromAgent = (a: Agent): Draft => ({ name: a.name, accountId: a.accountId ?? '', steps: fromSaved(a.steps) });

/** Each field a refusal names, at the place it names, with what the message says about it. */
export function placeErrors(error: ToolError, targets: ReadonlyMap<string, FieldTarget>): FieldErrors {
  const fields = Array.isArray(error.details.fields) ? (error.details.fields as string[]) : [];
  const out: FieldErrors = { steps: {}, top: {}, sequence: [] };
  for (const field of fields) {
    const text = messageAbout(error.message, field) ?? (fields.length === 1 ? error.message : 'Check this field.');
    if (field === 'name' || field === 'accountId') {
      out.top[field] = text;
      continue;
    }
    const at = resolveField(targets, field);
    if (at) out.steps[at.key] = { ...out.steps[at.key], [at.field]: text };
    else out.sequence.push(text);
  }
  return out;
}

/**
 * An agent being edited: loaded once from get_agent (or a starter sequence for a new one),
 * changed step by step, saved through create_agent (then the page moves to the new agent) or
 * update_agent with every kept step's id. An agent written as a note and messages is saved that
 * way while its tree keeps that shape, so API clients that write those fields keep working; past
 * that shape it is saved as steps (its derived ids sent back, so its leads stay where they are).
 * `version` counts saves, so the preview can follow the saved sequence.
 */
export function useAgentDraft(agentId: string | null) {
  const agent = useTool('get_agent', { agentId: agentId ?? '' }, { enabled: agentId !== null });
  const shape = useTool('get_agent_shape', { agentId: agentId ?? '' }, { enabled: agentId !== null });
  const accounts = useTool('list_accounts', { limit: 100 });
  const [draft, setDraft] = useState<Draft | null>(agentId === null ? { name: '', accountId: '', steps: starterSteps() } : null);
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>(NO_ERRORS);
  const create = useToolMutation('create_agent', ['list_agents']);
  const update = useToolMutation('update_agent', ['list_agents', 'get_agent', 'get_agent_shape', 'preview_agent', 'get_agent_stats']);

  useEffect(() => {
    if (agent.data && draft === null) setDraft(fromAgent(agent.data));
  }, [agent.data, draft]);
  // A new agent sends from the first account until another is chosen.
  useEffect(() => {
    if (draft && !draft.accountId && accounts.data?.accounts[0]) setDraft({ ...draft, accountId: accounts.data.accounts[0].id });
  }, [accounts.data, draft]);

  // Counts changes, so a save's answer can tell whether the person changed anything while it was on its way.
  const changes = useRef(0);

  const change = (patch: Partial<Draft>) => {
    changes.current += 1;
    setSaved(false);
    setDirty(true);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };

  /** Editing a field clears what was said about it. */
  const clearError = (key: string | null, field: string) =>
    setErrors((e) => {
      if (key === null) return field in e.top ? { ...e, top: { ...e.top, [field]: undefined } } : e;
      const at = e.steps[key];
      if (!at || !(field in at)) return e;
      const { [field]: _gone, ...rest } = at;
      return { ...e, steps: { ...e.steps, [key]: rest } };
    });

  // Such an agent reads as invite, then `if accepted` within the engine's invitation timeout.
  const legacy = agentId !== null && shape.data?.writtenWith === 'note_and_messages' ? (agent.data ?? null) : null;
  const legacyTimeout = legacy?.steps[1]?.kind === 'if' ? legacy.steps[1].withinHours : null;
  const simple = draft && legacyTimeout !== null ? asSimpleShape(draft.steps, legacyTimeout) : null;
  /** Saving turns an agent written as a note and messages into one written with steps. */
  const becomesSteps = legacy !== null && simple === null;

  const save = () => {
    if (!draft) return;
    const sent = draft.steps;
    const targets = simple ? simpleTargets(sent) : stepTargets(sent);
    const onError = (err: ToolError) => setErrors(placeErrors(err, targets));
    setErrors(NO_ERRORS);
    const base = { name: draft.name, accountId: draft.accountId };
    if (agentId === null) {
      create.mutate(
        { ...base, steps: toInput(sent), idempotencyKey: newIdempotencyKey() },
        { onSuccess: (a) => navigate(`/agents/${a.id}`, { replace: true }), onError },
      );
      return;
    }
    const args = simple ? { agentId, ...base, ...simple } : { agentId, ...base, steps: toInput(sent) };
    const at = changes.current;
    update.mutate(args, {
      onSuccess: (a) => {
        setDraft((d) => (d && d.steps === sent ? { ...d, steps: withSavedIds(sent, a.steps) } : d));
        // A change made while the save was on its way is not saved: the page keeps saying so.
        if (changes.current === at) {
          setSaved(true);
          setDirty(false);
        }
        setVersion((v) => v + 1);
      },
      onError,
    });
  };

  return {
    agent,
    accounts: accounts.data?.accounts,
    draft,
    change,
    save,
    saved,
    dirty,
    version,
    errors,
    clearError,
    becomesSteps,
    /** Whether the agent's shape is known, so a save goes out in the right one. */
    ready: agentId === null || shape.data !== undefined || shape.isError,
    pending: create.isPending || update.isPending,
    saveError: create.error ?? update.error,
  };
}
