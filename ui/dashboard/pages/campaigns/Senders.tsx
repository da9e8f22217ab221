import { useQuery } from '@tanstack/react-query';
import { useId, type FormEvent } from 'react';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';
import { useAgentName } from '../../../shared/agents.js';
import { useCan } from '../../../shared/access.js';
import { useTool, useToolMutation } from '../../../shared/hooks.js';
import { sameSet, useSavedMark, useTicks } from '../../../shared/forms.js';
import { unwrap, useCallTool, type ToolError } from '../../../shared/seam.js';
import type { Account, Campaign, ToolOutput } from '../../../shared/types.js';
import { Link } from '../../router.js';

/** The most senders a campaign takes (the API's limit). */
const SENDERS_MAX = 20;

/**
 * Every account, all pages of list_accounts: senders are named, never shown as ids, and a
 * workspace may have more accounts than one page. Cached under list_accounts, so connecting or
 * changing an account refreshes it.
 */
function useAllAccounts() {
  const callTool = useCallTool();
  return useQuery<Account[], ToolError>({
    queryKey: ['list_accounts', { all: true }],
    queryFn: async () => {
      const all: Account[] = [];
      let cursor: string | null = null;
      do {
        const page: ToolOutput<'list_accounts'> = unwrap(await callTool('list_accounts', { limit: 100, ...(cursor ? { cursor } : {}) }));
        all.push(...page.accounts);
        cursor = page.nextCursor;
      } while (cursor);
      return all;
    },
  });
}

/** What the campaign sends from today, in words: its senders by name, or the agent's account. */
function SendingFrom({ campaign, accounts }: { campaign: Campaign; accounts: ReadonlyMap<string, Account> }) {
  const agentName = useAgentName(campaign.assignedTemplateId);
  const agent = useTool(
    'get_agent',
    { agentId: campaign.assignedTemplateId ?? '' },
    { enabled: campaign.assignedTemplateId !== null && campaign.senderAccountIds.length === 0 },
  );
  if (campaign.senderAccountIds.length === 0) {
    const own = agent.data?.accountId ? accounts.get(agent.data.accountId) : undefined;
    if (!campaign.assignedTemplateId) return <p>No senders chosen: the campaign will send from its agent&apos;s account once it has an agent.</p>;
    return (
      <p>
        No senders chosen: the campaign sends from the account of its agent <Untrusted fallback="…">{agentName}</Untrusted>
        {own ? (
          <>
            , <Untrusted>{own.name}</Untrusted>
          </>
        ) : null}
        .
      </p>
    );
  }
  return (
    <p>
      Sends from {campaign.senderAccountIds.length} {campaign.senderAccountIds.length === 1 ? 'account' : 'accounts'}:{' '}
      {campaign.senderAccountIds.map((id, i) => (
        <span key={id}>
          {i > 0 ? ', ' : ''}
          <Untrusted fallback="an account no longer listed">{accounts.get(id)?.name}</Untrusted>
        </span>
      ))}
      .
    </p>
  );
}

/**
 * The accounts a campaign sends from (update_campaign's senderAccountIds), by name. Each lead is
 * pinned to one of them at its first step; none chosen means the agent's account. A running
 * campaign keeps its senders, so the form is locked until it is paused, and a refusal (409) says
 * why in the same words.
 */
export function CampaignSenders({ campaign }: { campaign: Campaign }) {
  const id = useId();
  const accounts = useAllAccounts();
  const byId = new Map((accounts.data ?? []).map((a) => [a.id, a]));
  // The campaign is polled: senders changed elsewhere (or just saved) replace the ticks, unless the person has ticked since.
  const [chosen, setChosen] = useTicks(campaign.senderAccountIds);
  const { saved, mark } = useSavedMark([...chosen].sort());
  const update = useToolMutation('update_campaign', ['get_campaign', 'list_campaigns']);
  // A role that cannot change the campaign sees who sends, without the choice.
  const canUpdate = useCan('update_campaign');
  // Without the choice it is no form: the senders are only shown.
  const Box = canUpdate ? 'form' : 'section';
  const running = campaign.status === 'CAMPAIGN_IN_PROGRESS';
  const changed = !sameSet(chosen, campaign.senderAccountIds);

  const toggle = (accountId: string, on: boolean) => {
    // Clears a refusal shown; a save on its way keeps its answer.
    if (!update.isPending) update.reset();
    setChosen((c) => (on ? [...c, accountId] : c.filter((a) => a !== accountId)));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // In the order the accounts are listed, so the same set saves the same way.
    const ordered = (accounts.data ?? []).map((a) => a.id).filter((a) => chosen.includes(a));
    const senderAccountIds = [...ordered, ...chosen.filter((a) => !ordered.includes(a))];
    update.mutate({ campaignId: campaign.id, senderAccountIds }, { onSuccess: () => mark([...senderAccountIds].sort()) });
  };
  const conflict = update.error?.code === 'conflict';

  return (
    <Box className="o-card" onSubmit={canUpdate ? submit : undefined} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Senders</h2>
      <SendingFrom campaign={campaign} accounts={byId} />
      <p className="o-hint">
        Each lead is sent from one account, fixed at its first step: the sender with the most invitations left that day. Every sender keeps its own limits, and
        a lead stays with its sender.
      </p>
      {running && canUpdate ? (
        <p className="o-alert o-alert-warning" role="note">
          The campaign is running, so its senders are locked: leads in flight keep theirs. Pause the campaign to change them, then start it again.
        </p>
      ) : null}
      <ErrorNote error={accounts.error} prefix="Could not load the accounts" />
      {accounts.data?.length === 0 ? (
        <p>
          No account is connected yet. <Link to="/accounts">Connect one</Link>.
        </p>
      ) : null}
      {canUpdate && accounts.data && accounts.data.length > 0 ? (
        <fieldset className="o-senders" disabled={running || update.isPending}>
          <legend className="o-label">Accounts that send for this campaign (none: the agent&apos;s account)</legend>
          <ul className="o-checklist">
            {accounts.data.map((a) => {
              const on = chosen.includes(a.id);
              return (
                <li key={a.id}>
                  <label>
                    <input type="checkbox" checked={on} disabled={!on && chosen.length >= SENDERS_MAX} onChange={(e) => toggle(a.id, e.target.checked)} />{' '}
                    <Untrusted>{a.name}</Untrusted>{' '}
                    <span className="o-muted">
                      ({a.status}
                      {a.active ? '' : ', inactive'})
                    </span>
                  </label>
                </li>
              );
            })}
          </ul>
          {chosen.length >= SENDERS_MAX ? <p className="o-hint">A campaign takes at most {SENDERS_MAX} senders.</p> : null}
        </fieldset>
      ) : null}
      {canUpdate ? (
        <div className="o-row">
          <button type="submit" className="o-button" disabled={running || !changed || update.isPending}>
            Save senders
          </button>
          {saved ? <span role="status">Senders saved.</span> : null}
        </div>
      ) : null}
      {conflict ? (
        <div role="alert" className="o-alert o-alert-error">
          The campaign started running, and a running campaign keeps its senders: pause it, change the senders, then start it again.
        </div>
      ) : (
        <ErrorNote error={update.error} prefix="Could not save the senders" />
      )}
    </Box>
  );
}
