import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { useCan } from '../../shared/access.js';
import { useTool } from '../../shared/hooks.js';
import { placeSteps } from '../../shared/steps.js';
import type { Agent } from '../../shared/types.js';
import { Link } from '../router.js';

export { AgentEditorPage } from './agents/AgentEditorPage.js';

/** "5 steps · 2 branches · A/B test": what an agent's sequence holds, at a glance. */
function sequenceSummary(agent: Agent): string {
  const placed = placeSteps(agent.steps);
  const branches = placed.filter((p) => p.step.kind === 'if').length;
  const tested = placed.some((p) => (p.step.kind === 'invite' || p.step.kind === 'message') && (p.step.variants?.length ?? 0) > 0);
  return [
    `${placed.length} ${placed.length === 1 ? 'step' : 'steps'}`,
    branches > 0 ? `${branches} ${branches === 1 ? 'branch' : 'branches'}` : null,
    tested ? 'A/B test' : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** Every agent (the sequence a campaign sends) of the workspace. */
export function AgentsPage() {
  const agents = useTool('list_agents', { limit: 100 });
  const canCreate = useCan('create_agent');
  return (
    <>
      <h1 tabIndex={-1}>Agents</h1>
      <p>
        An agent is the sequence a campaign sends: steps such as a profile visit, an invitation, messages and waits, with branches on whether the lead accepted
        or replied, and A/B variants of notes and messages. {canCreate ? <Link to="/agents/new">New agent</Link> : null}
      </p>
      <ErrorNote error={agents.error} />
      {agents.isPending ? <Loading label="Loading agents…" /> : null}
      {agents.data && agents.data.agents.length === 0 ? (
        <EmptyState title="No agents yet.">
          {canCreate ? (
            <p>
              <Link to="/agents/new">Create an agent</Link>, then assign it to a campaign: a campaign sends nothing until it has one.
            </p>
          ) : null}
        </EmptyState>
      ) : null}
      {agents.data && agents.data.agents.length > 0 ? (
        <ul className="o-card">
          {agents.data.agents.map((a) => (
            <li key={a.id}>
              <Link to={`/agents/${a.id}`}>
                <Untrusted>{a.name}</Untrusted>
              </Link>{' '}
              <span className="o-muted">· {sequenceSummary(a)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
