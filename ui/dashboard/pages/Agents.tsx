import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { useTool } from '../../shared/hooks.js';
import { Link } from '../router.js';

export { AgentEditorPage } from './agents/AgentEditorPage.js';

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
      {agents.data && agents.data.agents.length === 0 ? (
        <EmptyState title="No agents yet.">
          <p>
            <Link to="/agents/new">Create an agent</Link>, then assign it to a campaign: a campaign sends nothing until it has one.
          </p>
        </EmptyState>
      ) : null}
      {agents.data && agents.data.agents.length > 0 ? (
        <ul className="o-card">
          {agents.data.agents.map((a) => (
            <li key={a.id}>
              <Link to={`/agents/${a.id}`}>
                <Untrusted>{a.name}</Untrusted>
              </Link>{' '}
              <span className="o-muted">· {a.messages.length} messages</span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
