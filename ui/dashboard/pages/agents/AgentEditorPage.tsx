import { useId, type FormEvent } from 'react';
import { useCan } from '../../../shared/access.js';
import { ErrorNote, Loading } from '../../../shared/components/Feedback.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';
import { Link } from '../../router.js';
import { AgentPreview } from './AgentPreview.js';
import { SequenceFields } from './SequenceFields.js';
import { useAgentDraft } from './useAgentDraft.js';

const PLACEHOLDERS = ['firstName', 'lastName', 'fullName', 'companyName', 'jobTitle', 'location', 'headline', 'personalization'];

/** Creates or edits an agent: its name and sending account, then its sequence of steps; the preview follows the steps as they are written. */
export function AgentEditorPage({ agentId }: { agentId: string | null }) {
  const id = useId();
  const { agent, accounts, draft, change, save, saved, dirty, version, errors, clearError, becomesSteps, ready, pending, saveError } = useAgentDraft(agentId);
  // A role that reads agents but cannot write them (a viewer) sees the sequence without the save.
  const canSave = useCan(agentId === null ? 'create_agent' : 'update_agent');

  if (agentId !== null && agent.error) return <ErrorNote error={agent.error} />;
  if (!draft) return <Loading label="Loading the agent…" />;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    save();
  };
  const topError = (field: 'name' | 'accountId') => (errors.top[field] ? { 'aria-invalid': true as const, 'aria-describedby': `${id}-${field}-err` } : {});
  const placed = Object.keys(errors.steps).length > 0 || errors.sequence.length > 0;

  return (
    <>
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      <h1 tabIndex={-1}>{agentId === null ? 'New agent' : <Untrusted fallback="Agent">{agent.data?.name}</Untrusted>}</h1>
      <form className="o-card" onSubmit={submit} aria-label="Agent sequence" noValidate>
        <div className="o-field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input
            id={`${id}-name`}
            className="o-input"
            required
            maxLength={120}
            value={draft.name}
            onChange={(e) => {
              clearError(null, 'name');
              change({ name: e.target.value });
            }}
            {...topError('name')}
          />
          {errors.top.name ? (
            <p id={`${id}-name-err`} className="s-error">
              {errors.top.name}
            </p>
          ) : null}
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-accountId`}>Sending account</label>
          <select
            id={`${id}-accountId`}
            className="o-select"
            required
            value={draft.accountId}
            onChange={(e) => {
              clearError(null, 'accountId');
              change({ accountId: e.target.value });
            }}
            {...topError('accountId')}
          >
            {accounts?.length === 0 ? <option value="">Connect an account first</option> : null}
            {accounts?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.status})
              </option>
            ))}
          </select>
          <span className="o-hint">A campaign with senders of its own sends from those instead.</span>
          {errors.top.accountId ? (
            <p id={`${id}-accountId-err`} className="s-error">
              {errors.top.accountId}
            </p>
          ) : null}
        </div>
        <p className="o-hint" id={`${id}-ph`}>
          Placeholders: {PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}. A fallback follows a bar: {'{{firstName|there}}'}.
        </p>
        <SequenceFields
          hintId={`${id}-ph`}
          steps={draft.steps}
          onChange={(steps) => change({ steps })}
          errors={errors.steps}
          sequenceErrors={errors.sequence}
          onEdited={(key, field) => clearError(key, field)}
        />
        {becomesSteps ? (
          <p className="o-alert o-alert-warning s-notice" role="note">
            This agent was written as a connection note and messages. With these changes it is saved as steps: its leads stay at the steps they are at, and API
            clients then change it with steps instead of connectionNote and messages.
          </p>
        ) : null}
        <div className="o-row">
          {canSave ? (
            <button type="submit" className="o-button o-button-primary" disabled={pending || !ready}>
              {agentId === null ? 'Create agent' : 'Save agent'}
            </button>
          ) : null}
          {saved ? <span role="status">Saved.</span> : null}
        </div>
        <ErrorNote error={saveError} prefix={placed ? 'Could not save the agent; the fields to fix are marked' : 'Could not save the agent'} />
      </form>
      {agentId === null || agent.data ? (
        <AgentPreview agentId={agentId} version={version} steps={agent.data?.steps ?? []} dirty={dirty} editing={draft.steps} />
      ) : null}
    </>
  );
}
