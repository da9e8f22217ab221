import { useId, type FormEvent } from 'react';
import { ErrorNote } from '../../../shared/components/Feedback.js';
import { Untrusted } from '../../../shared/components/Untrusted.js';
import { useTool, useToolMutation } from '../../../shared/hooks.js';
import { sameSet, useSavedMark, useTicks } from '../../../shared/forms.js';
import type { Campaign } from '../../../shared/types.js';
import { useCan } from '../../../shared/access.js';
import { Link } from '../../router.js';

/** The most mailboxes a campaign takes (the API's limit). */
const MAILBOXES_MAX = 20;

/**
 * The mailboxes that send a campaign's email steps (update_campaign's mailboxIds), by address.
 * A lead is given one at its first email step and keeps it, as it keeps its LinkedIn sender; a
 * running campaign keeps its mailboxes, so the form is locked until it is paused.
 */
export function CampaignMailboxes({ campaign }: { campaign: Campaign }) {
  // A role that cannot read the mailboxes (a reviewer) does not see the section.
  return useCan('list_mailboxes') ? <MailboxChoice campaign={campaign} /> : null;
}

function MailboxChoice({ campaign }: { campaign: Campaign }) {
  const id = useId();
  const stored = campaign.mailboxIds ?? [];
  const mailboxes = useTool('list_mailboxes', { limit: 100 });
  const canChange = useCan('update_campaign');
  // A role that cannot change the campaign reads the choice; it gets no form to submit.
  const Box = canChange ? 'form' : 'section';
  // Mailboxes changed elsewhere (or just saved) replace the ticks, unless the person has ticked since.
  const [chosen, setChosen] = useTicks(stored);
  const { saved, mark } = useSavedMark([...chosen].sort());
  const update = useToolMutation('update_campaign', ['get_campaign', 'list_campaigns']);
  const running = campaign.status === 'CAMPAIGN_IN_PROGRESS';
  const changed = !sameSet(chosen, stored);
  const list = mailboxes.data?.mailboxes ?? [];

  const toggle = (mailboxId: string, on: boolean) => {
    // Clears a refusal shown; a save on its way keeps its answer.
    if (!update.isPending) update.reset();
    setChosen((c) => (on ? [...c, mailboxId] : c.filter((m) => m !== mailboxId)));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const ordered = list.map((m) => m.id).filter((m) => chosen.includes(m));
    const mailboxIds = [...ordered, ...chosen.filter((m) => !ordered.includes(m))];
    update.mutate({ campaignId: campaign.id, mailboxIds }, { onSuccess: () => mark([...mailboxIds].sort()) });
  };

  return (
    <Box className="o-card" onSubmit={canChange ? submit : undefined} aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Mailboxes</h2>
      <p className="o-hint">
        The email steps of the agent go out from these mailboxes. Each lead gets one at its first email, the one with the most emails left that day, and keeps
        it. Without a mailbox, email steps wait.
      </p>
      {running ? (
        <p className="o-alert o-alert-warning" role="note">
          The campaign is running, so its mailboxes are locked. Pause it to change them.
        </p>
      ) : null}
      <ErrorNote error={mailboxes.error} prefix="Could not load the mailboxes" />
      {mailboxes.data && list.length === 0 ? (
        <p>
          No mailbox is connected yet. <Link to="/mailboxes">Connect one</Link>.
        </p>
      ) : null}
      {list.length > 0 ? (
        <fieldset className="o-senders" disabled={!canChange || running || update.isPending}>
          <legend className="o-label">Mailboxes that send for this campaign</legend>
          <ul className="o-checklist">
            {list.map((m) => {
              const on = chosen.includes(m.id);
              return (
                <li key={m.id}>
                  <label>
                    <input type="checkbox" checked={on} disabled={!on && chosen.length >= MAILBOXES_MAX} onChange={(e) => toggle(m.id, e.target.checked)} />{' '}
                    <Untrusted>{m.name}</Untrusted>{' '}
                    <span className="o-muted">
                      ({m.address}, {m.status})
                    </span>
                  </label>
                </li>
              );
            })}
          </ul>
        </fieldset>
      ) : null}
      {canChange ? (
        <div className="o-row">
          <button type="submit" className="o-button" disabled={running || !changed || update.isPending}>
            Save mailboxes
          </button>
          {saved ? <span role="status">Mailboxes saved.</span> : null}
        </div>
      ) : null}
      <ErrorNote error={update.error} prefix="Could not save the mailboxes" />
    </Box>
  );
}
