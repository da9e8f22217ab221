import { useId, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../../shared/components/Feedback.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';
import { Link } from '../../router.js';
import { AgentPreview } from './AgentPreview.js';
import { SequenceFields } from './SequenceFields.js';
import { useAgentDraft } from './useAgentDraft.js';

const PLACEHOLDERS = ['firstName', 'lastName', 'fullName', 'companyName', 'jobTitle', 'location', 'headline', 'personalization'];

/** Creates or edits an agent: its name and sending account, then its sequence; the preview follows each save. */
export function AgentEditorPage({ agentId }: { agentId: string | null }) {
  const id = useId();
  const { agent, accounts, draft, change, save, saved, version, pending, saveError } = useAgentDraft(agentId);

  if (agentId !== null && agent.error) return <ErrorNote error={agent.error} />;
  if (!draft) return <Loading label="Loading the agent…" />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save();
  };

  return (
    <>
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      <h1 tabIndex={-1}>{agentId === null ? 'New agent' : <Untrusted fallback="Agent">{agent.data?.name}</Untrusted>}</h1>
      <form className="o-card" onSubmit={submit} aria-label="Agent sequence">
        <div className="o-field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} className="o-input" required maxLength={120} value={draft.name} onChange={(e) => change({ name: e.target.value })} />
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-acct`}>Sending account</label>
          <select id={`${id}-acct`} className="o-select" required value={draft.accountId} onChange={(e) => change({ accountId: e.target.value })}>
            {accounts?.length === 0 ? <option value="">Connect an account first</option> : null}
            {accounts?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.status})
              </option>
            ))}
          </select>
        </div>
        <p className="o-hint" id={`${id}-ph`}>
          Placeholders: {PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}. A fallback follows a bar: {'{{firstName|there}}'}.
        </p>
        <SequenceFields id={id} hintId={`${id}-ph`} draft={draft} onChange={change} />
        <div className="o-row">
          <button type="submit" className="o-button o-button-primary" disabled={pending}>
            {agentId === null ? 'Create agent' : 'Save agent'}
          </button>
          {saved ? <span role="status">Saved. The preview shows the saved sequence.</span> : null}
        </div>
        <ErrorNote error={saveError} prefix="Could not save the agent" />
      </form>
      {agentId !== null ? <AgentPreview agentId={agentId} version={version} /> : <p className="o-muted">Create the agent to preview it with a lead.</p>}
    </>
  );
}
