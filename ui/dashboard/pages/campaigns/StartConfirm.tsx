import { Confirm } from '../../../shared/components/Confirm.js';
import { formatNumber } from '../../../shared/format.js';
import { useTool } from '../../../shared/hooks.js';
import type { Campaign } from '../../../shared/types.js';

const leads = (n: number) => `${formatNumber(n)} ${n === 1 ? 'lead' : 'leads'}`;

/**
 * Start asks first, as start_campaign's own confirmation does over MCP, from the same read
 * (preview_start_campaign): who sends to how many leads (the leads already pinned to a sender
 * under it, the rest shared among the campaign's senders), and whether a person approves each
 * message first.
 */
export function StartConfirm({ campaign, start, cancel }: { campaign: Campaign; start: () => void; cancel: () => void }) {
  const preview = useTool('preview_start_campaign', { campaignId: campaign.id });
  const verb = campaign.status === 'CAMPAIGN_PAUSED' ? 'Resume' : 'Start';
  const p = preview.data;
  const named = (a: { accountId: string; name: string | null }) => a.name ?? a.accountId;
  const busy = p ? p.accounts.filter((a) => a.count > 0 || (a.shared && p.unassigned > 0)) : [];
  const shared = p ? p.accounts.filter((a) => a.shared) : [];
  // With no lead to share, a campaign with one sender still names it.
  const only = busy.length === 1 ? busy[0] : busy.length === 0 && shared.length === 1 ? shared[0] : undefined;
  return (
    <Confirm title={`${verb} campaign ${campaign.name}?`} confirmLabel={`${verb} sending`} onConfirm={start} onCancel={cancel}>
      {!p ? (
        <p aria-busy="true">It will send connection requests and messages to its {leads(campaign.totalLeads)}. Counting the leads per sender…</p>
      ) : busy.length <= 1 ? (
        <p>
          It will send connection requests and messages to its {leads(p.leads)}
          {only ? ` from ${named(only)}` : ''}.
        </p>
      ) : (
        <>
          <p>It will send connection requests and messages to its {leads(p.leads)}, each sender within its own daily limits:</p>
          <ul aria-label="Leads per sender">
            {p.accounts
              .filter((a) => a.count > 0)
              .map((a) => (
                <li key={a.accountId}>
                  <bdi>{named(a)}</bdi>: {leads(a.count)}
                </li>
              ))}
            {p.unassigned > 0 ? (
              <li>
                {leads(p.unassigned)} shared among the senders {shared.map(named).join(', ')} (each goes to the sender with the most invitations left that day)
              </li>
            ) : null}
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
