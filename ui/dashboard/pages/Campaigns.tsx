import { useId, useState, type FormEvent } from 'react';
import { useAgentName } from '../../shared/agents.js';
import { CampaignCard } from '../../shared/components/CampaignCard.js';
import { EmptyState } from '../../shared/components/EmptyState.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Table } from '../../shared/components/Table.js';
import { LeadsTable } from '../../shared/components/LeadsTable.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { campaignStatusLabel, formatNumber, formatRate } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { newIdempotencyKey, useTool, useToolMutation } from '../../shared/hooks.js';
import { useSavedMark } from '../../shared/forms.js';
import type { Campaign } from '../../shared/types.js';
import { StepFunnel } from '../../shared/components/StepFunnel.js';
import { Link, navigate } from '../router.js';
import { CampaignSenders } from './campaigns/Senders.js';
import { CampaignMailboxes } from './campaigns/Mailboxes.js';
import { StartConfirm } from './campaigns/StartConfirm.js';
import { leadName } from '../../shared/components/leads/LeadRows.js';
import { useLivePoll } from '../../shared/live.js';

/** A select of the workspace's agents (first 100), with "none". */
function AgentSelect({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const agents = useTool('list_agents', { limit: 100 });
  return (
    <select id={id} className="o-select" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">No agent yet</option>
      {agents.data?.agents.map((a) => (
        <option key={a.id} value={a.id}>
          {a.name}
        </option>
      ))}
    </select>
  );
}

/** A campaign's name and agent, as the new-campaign and settings forms both ask for them. */
function NameAndAgent({
  id,
  name,
  onName,
  agentId,
  onAgent,
}: {
  id: string;
  name: string;
  onName: (v: string) => void;
  agentId: string;
  onAgent: (v: string) => void;
}) {
  return (
    <div className="o-row">
      <div className="o-field">
        <label htmlFor={`${id}-name`}>Name</label>
        <input id={`${id}-name`} className="o-input" required maxLength={120} value={name} onChange={(e) => onName(e.target.value)} />
      </div>
      <div className="o-field">
        <label htmlFor={`${id}-agent`}>Agent</label>
        <AgentSelect id={`${id}-agent`} value={agentId} onChange={onAgent} />
      </div>
    </div>
  );
}

type Approval = Campaign['approval'];

/** The approval switch: on, every note and message waits on the Drafts page for a person. */
function ApprovalSwitch({ id, value, onChange }: { id: string; value: Approval; onChange: (v: Approval) => void }) {
  return (
    <div className="o-field">
      <div className="o-row">
        <input
          id={`${id}-approval`}
          type="checkbox"
          role="switch"
          aria-checked={value === 'required'}
          checked={value === 'required'}
          aria-describedby={`${id}-approval-h`}
          onChange={(e) => onChange(e.target.checked ? 'required' : 'off')}
        />
        <label htmlFor={`${id}-approval`}>Require approval before anything is sent</label>
      </div>
      <p id={`${id}-approval-h`} className="o-hint">
        On, every note and message waits on the Drafts page until a person approves it. Turned off later, drafts still waiting are sent as they stand.
      </p>
    </div>
  );
}

function CreateCampaign() {
  const id = useId();
  const [name, setName] = useState('');
  const [agentId, setAgentId] = useState('');
  const [approval, setApproval] = useState<Approval>('off');
  const create = useToolMutation('create_campaign', ['list_campaigns', 'get_insights_overview']);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name, assignedTemplateId: agentId || null, approval, idempotencyKey: newIdempotencyKey() },
      { onSuccess: (c) => navigate(`/campaigns/${c.id}`) },
    );
  };
  return (
    <form className="o-card" onSubmit={submit} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>New campaign</h2>
      <NameAndAgent id={id} name={name} onName={setName} agentId={agentId} onAgent={setAgentId} />
      <ApprovalSwitch id={id} value={approval} onChange={setApproval} />
      <button type="submit" className="o-button o-button-primary" disabled={create.isPending}>
        Create campaign
      </button>
      <ErrorNote error={create.error} prefix="Could not create the campaign" />
    </form>
  );
}

/** A campaign's agent by name, in a table cell. */
function AgentCell({ agentId }: { agentId: string | null }) {
  const name = useAgentName(agentId);
  if (agentId === null) return <span className="o-muted">None</span>;
  return <Untrusted fallback="…">{name}</Untrusted>;
}

/** Every campaign, paged, with a form to create one. */
export function CampaignsPage() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const list = useTool('list_campaigns', { limit: 50, ...(cursor ? { cursor } : {}) }, { keepPrevious: true });
  const canCreate = useCan('create_campaign');
  return (
    <>
      <h1 tabIndex={-1}>Campaigns</h1>
      {canCreate ? <CreateCampaign /> : null}
      <ErrorNote error={list.error} />
      {list.isPending ? <Loading label="Loading campaigns…" /> : null}
      {list.data ? (
        <Table caption="Campaigns" card columns={['Name', 'Status', 'Agent', 'Leads', 'Requests sent', 'Acceptance', 'Replies', 'Reply rate']}>
          {list.data.campaigns.length === 0 ? (
            <tr>
              <td colSpan={8}>
                <EmptyState title="No campaigns yet.">Create one above: give it a name and an agent, then import its leads and start it.</EmptyState>
              </td>
            </tr>
          ) : null}
          {list.data.campaigns.map((c) => (
            <tr key={c.id}>
              <td>
                <Link to={`/campaigns/${c.id}`}>
                  <Untrusted>{c.name}</Untrusted>
                </Link>
              </td>
              <td>{campaignStatusLabel(c.status)}</td>
              <td>
                <AgentCell agentId={c.assignedTemplateId} />
              </td>
              <td>{formatNumber(c.totalLeads)}</td>
              <td>{formatNumber(c.stats.connectionRequestsSent)}</td>
              <td>{formatRate(c.stats.acceptanceRate)}</td>
              <td>{formatNumber(c.stats.repliesReceived)}</td>
              <td>{formatRate(c.stats.replyRate)}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      <nav className="o-row" aria-label="Campaign pages">
        <button type="button" className="o-button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Previous page
        </button>
        <button
          type="button"
          className="o-button"
          disabled={!list.data?.nextCursor}
          onClick={() => {
            const next = list.data?.nextCursor;
            if (next) setCursors((c) => [...c, next]);
          }}
        >
          Next page
        </button>
      </nav>
    </>
  );
}

function EditCampaign({ campaign }: { campaign: Campaign }) {
  const id = useId();
  const [name, setName] = useState(campaign.name);
  const [agentId, setAgentId] = useState(campaign.assignedTemplateId ?? '');
  const [approval, setApproval] = useState<Approval>(campaign.approval);
  const { saved, mark } = useSavedMark({ name, agentId, approval });
  const update = useToolMutation('update_campaign', ['get_campaign', 'list_campaigns']);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sent = { name, agentId, approval };
    const args: { campaignId: string; name?: string; assignedTemplateId?: string | null; approval?: Approval } = { campaignId: campaign.id };
    if (name !== campaign.name) args.name = name;
    if ((agentId || null) !== campaign.assignedTemplateId) args.assignedTemplateId = agentId || null;
    if (approval !== campaign.approval) args.approval = approval;
    if (args.name === undefined && args.assignedTemplateId === undefined && args.approval === undefined) return mark(sent);
    update.mutate(args, { onSuccess: () => mark(sent) });
  };
  return (
    <form className="o-card" onSubmit={submit} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Settings</h2>
      <NameAndAgent id={id} name={name} onName={setName} agentId={agentId} onAgent={setAgentId} />
      <ApprovalSwitch id={id} value={approval} onChange={setApproval} />
      <div className="o-row">
        <button type="submit" className="o-button" disabled={update.isPending}>
          Save settings
        </button>
        {saved ? <span role="status">Saved.</span> : null}
      </div>
      <ErrorNote error={update.error} prefix="Could not save" />
    </form>
  );
}

/** The campaign's agent, step by step and variant by variant, counted over this campaign's leads. */
function CampaignSteps({ campaign }: { campaign: Campaign }) {
  const id = useId();
  const agentName = useAgentName(campaign.assignedTemplateId);
  return (
    <section className="o-card" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Steps and variants</h2>
      {campaign.assignedTemplateId ? (
        <>
          <p className="o-muted">
            The sequence of the agent{' '}
            <Link to={`/agents/${campaign.assignedTemplateId}`}>
              <Untrusted fallback="assigned">{agentName}</Untrusted>
            </Link>
            , counted over this campaign&apos;s leads.
          </p>
          <StepFunnel agentId={campaign.assignedTemplateId} campaignId={campaign.id} />
        </>
      ) : (
        <EmptyState title="No agent yet.">Assign an agent in the settings above: its steps and their A/B variants are counted here.</EmptyState>
      )}
    </section>
  );
}

/** One campaign: its card with Start/Pause, its settings and senders, its step funnel, and its leads. */
export function CampaignPage({ campaignId }: { campaignId: string }) {
  const campaign = useTool('get_campaign', { campaignId }, { refetchInterval: useLivePoll(5_000) });
  const canUpdate = useCan('update_campaign');
  const canImport = useCan('start_import');
  return (
    <>
      <p>
        <Link to="/campaigns">← Campaigns</Link>
      </p>
      <h1 tabIndex={-1}>
        <Untrusted fallback="Campaign">{campaign.data?.name}</Untrusted>
      </h1>
      <ErrorNote error={campaign.error} />
      {campaign.isPending ? <Loading label="Loading the campaign…" /> : null}
      {campaign.data ? (
        <>
          <CampaignCard
            campaign={campaign.data}
            title="Status and funnel"
            headingLevel={2}
            confirmStart={(c, start, cancel) => <StartConfirm campaign={c} start={start} cancel={cancel} />}
          >
            {canImport ? <Link to={`/import?campaign=${encodeURIComponent(campaign.data.id)}`}>Import leads from CSV</Link> : null}
          </CampaignCard>
          {canUpdate ? (
            <EditCampaign
              key={`${campaign.data.id}:${campaign.data.name}:${campaign.data.assignedTemplateId}:${campaign.data.approval}`}
              campaign={campaign.data}
            />
          ) : null}
          <CampaignSenders key={campaign.data.id} campaign={campaign.data} />
          <CampaignMailboxes key={`${campaign.data.id}:mailboxes`} campaign={campaign.data} />
          <CampaignSteps campaign={campaign.data} />
          <div className="o-card">
            <LeadsTable
              campaignId={campaign.data.id}
              searchable
              emptyNext={
                canImport ? (
                  <p>
                    <Link to={`/import?campaign=${encodeURIComponent(campaign.data.id)}`}>Import leads from a CSV file</Link>, or add them with the API&apos;s
                    add_lead and add_leads_batch.
                  </p>
                ) : null
              }
              rowAction={(lead) => (
                <span className="o-row">
                  <Link to={`/leads/${encodeURIComponent(campaign.data?.id ?? '')}/${encodeURIComponent(lead.id)}`}>
                    Details<span className="sr-only"> of {leadName(lead)}</span>
                  </Link>
                  {lead.replied ? <Link to={`/inbox/${lead.id}`}>Open thread</Link> : null}
                </span>
              )}
            />
          </div>
        </>
      ) : null}
    </>
  );
}
