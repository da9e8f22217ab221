import { useEffect, useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { newIdempotencyKey, useTool, useToolMutation } from '../../shared/hooks.js';
import type { Agent, AgentFields } from '../../shared/types.js';
import { Link, navigate } from '../router.js';

const PLACEHOLDERS = ['firstName', 'lastName', 'fullName', 'companyName', 'jobTitle', 'location', 'headline', 'personalization'];

/** Every agent (message sequence) of the workspace. */
export function AgentsPage() {
  const agents = useTool('list_agents', { limit: 100 });
  return (
    <>
      <h1 tabIndex={-1}>Agents</h1>
      <p>
        An agent is the sequence a campaign sends: a connection note, then messages after delays. <Link to="/agents/new">New agent</Link>
      </p>
      <ErrorNote error={agents.error} />
      {agents.isPending ? <Loading label="Loading agents…" /> : null}
      {agents.data ? (
        <ul className="o-card">
          {agents.data.agents.length === 0 ? <li>No agents yet.</li> : null}
          {agents.data.agents.map((a) => (
            <li key={a.id}>
              <Link to={`/agents/${a.id}`}>{a.name}</Link> <span className="o-muted">· {a.messages.length} messages</span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

type Draft = AgentFields;
const EMPTY: Draft = {
  name: '',
  accountId: '',
  connectionNote: 'Hi {{firstName|there}}, ',
  messages: [{ text: 'Thanks for connecting, {{firstName|there}}!', delayHours: 24 }],
};

function fromAgent(a: Agent): Draft {
  return { name: a.name, accountId: a.accountId ?? '', connectionNote: a.connectionNote, messages: a.messages.map((m) => ({ ...m })) };
}

/** The rendered sequence for one lead, through preview_agent: exactly what that lead would get. */
function Preview({ agentId, version }: { agentId: string; version: number }) {
  const id = useId();
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const [campaignId, setCampaignId] = useState('');
  const firstWithLeads = campaigns.data?.campaigns.find((c) => c.totalLeads > 0)?.id ?? '';
  const chosenCampaign = campaignId || firstWithLeads;
  const leads = useTool('list_leads', { campaignId: chosenCampaign, limit: 50 }, { enabled: chosenCampaign !== '' });
  const [leadId, setLeadId] = useState('');
  const chosenLead = leadId || leads.data?.leads[0]?.id || '';
  const preview = useTool('preview_agent', { agentId, leadId: chosenLead }, { enabled: chosenLead !== '' });
  const { refetch } = preview;
  useEffect(() => {
    if (version > 0 && chosenLead) void refetch();
  }, [version, chosenLead, refetch]);

  return (
    <section className="o-card" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Preview</h2>
      <div className="o-row">
        <div className="o-field">
          <label htmlFor={`${id}-c`}>Campaign</label>
          <select
            id={`${id}-c`}
            className="o-select"
            value={chosenCampaign}
            onChange={(e) => {
              setCampaignId(e.target.value);
              setLeadId('');
            }}
          >
            {campaigns.data?.campaigns.map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-l`}>Lead</label>
          <select id={`${id}-l`} className="o-select" value={chosenLead} onChange={(e) => setLeadId(e.target.value)}>
            {leads.data?.leads.map((l) => (
              <option key={l.id} value={l.id}>
                {l.fullName ?? l.networkUrl ?? l.id}
              </option>
            ))}
          </select>
        </div>
      </div>
      {!chosenLead ? <p className="o-muted">Add leads to a campaign to preview this agent with a real lead.</p> : null}
      <ErrorNote error={preview.error} />
      {preview.data ? (
        <div aria-live="polite" aria-label="Rendered sequence" role="region">
          <h3>Connection note</h3>
          <p className="o-msg o-msg-out">{preview.data.connectionNote ?? <em>Sent without a note.</em>}</p>
          {preview.data.messages.map((text, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the rendered messages are positional and never reordered
            <div key={i}>
              <h3>Message {i + 1}</h3>
              <p className="o-msg o-msg-out">{text}</p>
            </div>
          ))}
        </div>
      ) : null}
    </section>
  );
}

/** Creates or edits an agent: note, messages with delays, placeholders; preview after each save. */
export function AgentEditorPage({ agentId }: { agentId: string | null }) {
  const id = useId();
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
  useEffect(() => {
    if (draft && !draft.accountId && accounts.data?.accounts[0]) setDraft({ ...draft, accountId: accounts.data.accounts[0].id });
  }, [accounts.data, draft]);

  if (agentId !== null && agent.error) return <ErrorNote error={agent.error} />;
  if (!draft) return <Loading label="Loading the agent…" />;

  const set = (patch: Partial<Draft>) => {
    setSaved(false);
    setDraft({ ...draft, ...patch });
  };
  const setMessage = (i: number, patch: Partial<Draft['messages'][number]>) =>
    set({ messages: draft.messages.map((m, j) => (j === i ? { ...m, ...patch } : m)) });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const fields: AgentFields = { ...draft, connectionNote: draft.connectionNote?.trim() ? draft.connectionNote : null };
    if (agentId === null) {
      create.mutate({ ...fields, idempotencyKey: newIdempotencyKey() }, { onSuccess: (a) => navigate(`/agents/${a.id}`, { replace: true }) });
    } else {
      update.mutate(
        { agentId, ...fields },
        {
          onSuccess: () => {
            setSaved(true);
            setVersion((v) => v + 1);
          },
        },
      );
    }
  };
  const pending = create.isPending || update.isPending;

  return (
    <>
      <p>
        <Link to="/agents">← Agents</Link>
      </p>
      <h1 tabIndex={-1}>{agentId === null ? 'New agent' : (agent.data?.name ?? 'Agent')}</h1>
      <form className="o-card" onSubmit={submit} aria-label="Agent sequence">
        <div className="o-field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} className="o-input" required maxLength={120} value={draft.name} onChange={(e) => set({ name: e.target.value })} />
        </div>
        <div className="o-field">
          <label htmlFor={`${id}-acct`}>Sending account</label>
          <select id={`${id}-acct`} className="o-select" required value={draft.accountId} onChange={(e) => set({ accountId: e.target.value })}>
            {accounts.data?.accounts.length === 0 ? <option value="">Connect an account first</option> : null}
            {accounts.data?.accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.status})
              </option>
            ))}
          </select>
        </div>
        <p className="o-hint" id={`${id}-ph`}>
          Placeholders: {PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}. A fallback follows a bar: {'{{firstName|there}}'}.
        </p>
        <div className="o-field">
          <label htmlFor={`${id}-note`}>Connection note (up to 300 characters; empty sends none)</label>
          <textarea
            id={`${id}-note`}
            className="o-textarea"
            maxLength={300}
            aria-describedby={`${id}-ph`}
            value={draft.connectionNote ?? ''}
            onChange={(e) => set({ connectionNote: e.target.value })}
          />
        </div>
        <fieldset className="o-stack">
          <legend className="o-label">Messages after the invitation is accepted</legend>
          {draft.messages.map((m, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; an edit keeps the position, and removal re-renders the list
            <div key={i} className="o-card">
              <div className="o-field">
                <label htmlFor={`${id}-m${i}`}>Message {i + 1}</label>
                <textarea
                  id={`${id}-m${i}`}
                  className="o-textarea"
                  required
                  maxLength={8000}
                  aria-describedby={`${id}-ph`}
                  value={m.text}
                  onChange={(e) => setMessage(i, { text: e.target.value })}
                />
              </div>
              <div className="o-row">
                <div className="o-field">
                  <label htmlFor={`${id}-d${i}`}>Delay before message {i + 1} (hours)</label>
                  <input
                    id={`${id}-d${i}`}
                    className="o-input"
                    type="number"
                    min={0}
                    max={720}
                    step={1}
                    required
                    value={m.delayHours}
                    onChange={(e) => setMessage(i, { delayHours: Number(e.target.value) })}
                  />
                </div>
                <button type="button" className="o-button" onClick={() => set({ messages: draft.messages.filter((_, j) => j !== i) })}>
                  Remove message {i + 1}
                </button>
              </div>
            </div>
          ))}
          <button
            type="button"
            className="o-button"
            disabled={draft.messages.length >= 10}
            onClick={() => set({ messages: [...draft.messages, { text: '', delayHours: 24 }] })}
          >
            Add a message
          </button>
        </fieldset>
        <div className="o-row">
          <button type="submit" className="o-button o-button-primary" disabled={pending}>
            {agentId === null ? 'Create agent' : 'Save agent'}
          </button>
          {saved ? <span role="status">Saved. The preview shows the saved sequence.</span> : null}
        </div>
        <ErrorNote error={create.error ?? update.error} prefix="Could not save the agent" />
      </form>
      {agentId !== null ? <Preview agentId={agentId} version={version} /> : <p className="o-muted">Create the agent to preview it with a lead.</p>}
    </>
  );
}
