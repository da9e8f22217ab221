import { Confirm } from '../../../shared/components/Confirm.js';
import { formatNumber } from '../../../shared/format.js';
import { useTool } from '../../../shared/hooks.js';
import type { Campaign } from '../../../shared/types.js';

const leads = (n: number) => `${formatNumber(n)} ${n === 1 ? 'lead' : 'leads'}`;

/**
 * Start asks first, as start_campaign's own confirmation does over MCP: who sends (each sender
 * by name: the campaign's senders, else its agent's account), to how many leads, and whether a
 * person approves each message first.
 */
export function StartConfirm({ campaign, start, cancel }: { campaign: Campaign; start: () => void; cancel: () => void }) {
  const accounts = useTool('list_accounts', { limit: 100 });
  const agent = useTool(
    'get_agent',
    { agentId: campaign.assignedTemplateId ?? '' },
    { enabled: campaign.assignedTemplateId !== null && campaign.senderAccountIds.length === 0 },
  );
  const ids = campaign.senderAccountIds.length > 0 ? campaign.senderAccountIds : agent.data?.accountId ? [agent.data.accountId] : [];
  const name = (id: string) => accounts.data?.accounts.find((a) => a.id === id)?.name ?? id;
  const verb = campaign.status === 'CAMPAIGN_PAUSED' ? 'Resume' : 'Start';
  return (
    <Confirm title={`${verb} campaign ${campaign.name}?`} confirmLabel={`${verb} sending`} onConfirm={start} onCancel={cancel}>
      {ids.length <= 1 ? (
        <p>
          It will send connection requests and messages to its {leads(campaign.totalLeads)}
          {ids[0] ? ` from ${name(ids[0])}` : ''}.
        </p>
      ) : (
        <>
          <p>
            It will send connection requests and messages to its {leads(campaign.totalLeads)}, shared among {ids.length} senders, each within its own daily
            limits:
          </p>
          <ul>
            {ids.map((id) => (
              <li key={id}>{name(id)}</li>
            ))}
          </ul>
        </>
      )}
      <p>
        {campaign.approval === 'required'
          ? 'Approval is required: each note and message waits on the Drafts page until a person approves it.'
          : 'Approval is off: notes and messages go out as the agent writes them.'}
      </p>
    </Confirm>
  );
}
