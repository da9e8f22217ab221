import { useEffect, useState } from 'react';
import { newIdempotencyKey, useTool, useToolMutation } from '../../../shared/hooks.js';
import type { Agent, AgentFields } from '../../../shared/types.js';
import { navigate } from '../../router.js';

export type Draft = AgentFields;
export type DraftMessage = Draft['messages'][number];

const EMPTY: Draft = {
  name: '',
  accountId: '',
  connectionNote: 'Hi {{firstName|there}}, ',
  messages: [{ text: 'Thanks for connecting, {{firstName|there}}!', delayHours: 24 }],
};

const fromAgent = (a: Agent): Draft => ({
  name: a.name,
  accountId: a.accountId ?? '',
  connectionNote: a.connectionNote,
  messages: a.messages.map((m) => ({ ...m })),
});

/**
 * An agent being edited: loaded once from get_agent (or empty for a new one), changed field by
 * field, saved through create_agent (then the page moves to the new agent) or update_agent.
 * `version` counts saves, so the preview can follow the saved sequence.
 */
export function useAgentDraft(agentId: string | null) {
  const agent = useTool('get_agent', { agentId: agentId ?? '' }, { enabled: agentId !== null });
  const accounts = useTool('list_accounts', { limit: 100 });
  const [draft, setDraft] = useState<Draft | null>(agentId === null ? EMPTY : null);
  const [version, setVersion] = useState(0);
  const [saved, setSaved] = useState(false);
  const create = useToolMutation('create_agent', ['list_agents']);
  const update = useToolMutation('update_agent', ['list_agents', 'get_agent', 'preview_agent']);

  useEffect(() => {
    if (agent.data && draft === null) setDraft(fromAgent(agent.data));
  }, [agent.data, draft]);
  // A new agent sends from the first account until another is chosen.
  useEffect(() => {
    if (draft && !draft.accountId && accounts.data?.accounts[0]) setDraft({ ...draft, accountId: accounts.data.accounts[0].id });
  }, [accounts.data, draft]);

  const change = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };

  const save = () => {
    if (!draft) return;
    const fields: AgentFields = { ...draft, connectionNote: draft.connectionNote?.trim() ? draft.connectionNote : null };
    if (agentId === null) {
      create.mutate({ ...fields, idempotencyKey: newIdempotencyKey() }, { onSuccess: (a) => navigate(`/agents/${a.id}`, { replace: true }) });
      return;
    }
    update.mutate(
      { agentId, ...fields },
      {
        onSuccess: () => {
          setSaved(true);
          setVersion((v) => v + 1);
        },
      },
    );
  };

  return {
    agent,
    accounts: accounts.data?.accounts,
    draft,
    change,
    save,
    saved,
    version,
    pending: create.isPending || update.isPending,
    saveError: create.error ?? update.error,
  };
}
