import { useEffect, useId, useState } from 'react';
import { EmptyState } from '../../../shared/components/EmptyState.js';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { UntrustedBlock } from '../../../shared/components/Untrusted.js';
import { useTool } from '../../../shared/hooks.js';

/**
 * The saved sequence as one lead would get it, through preview_agent: the first campaign with
 * leads and its first lead by default, or any the operator picks. `version` changes on each
 * save, and the preview follows.
 */
export function AgentPreview({ agentId, version }: { agentId: string; version: number }) {
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
      {!chosenLead && (campaigns.data || leads.data) ? (
        <EmptyState title="No lead to preview with yet.">Add leads to a campaign to see this agent’s messages as a real lead would get them.</EmptyState>
      ) : null}
      <ErrorNote error={preview.error} />
      {preview.data ? (
        <div aria-live="polite" aria-label="Rendered sequence" role="region">
          <h3>Connection note</h3>
          {preview.data.connectionNote ? (
            <UntrustedBlock className="o-msg o-msg-out">{preview.data.connectionNote}</UntrustedBlock>
          ) : (
            <p className="o-msg o-msg-out">
              <em>Sent without a note.</em>
            </p>
          )}
          {preview.data.messages.map((text, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the rendered messages are positional and never reordered
            <div key={i}>
              <h3>Message {i + 1}</h3>
              <UntrustedBlock className="o-msg o-msg-out">{text}</UntrustedBlock>
            </div>
          ))}
        </div>
      ) : null}
    </section>
  );
}
