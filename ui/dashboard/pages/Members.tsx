import { useId, useState, type FormEvent } from 'react';
import { Confirm } from '../../shared/components/Confirm.js';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Table } from '../../shared/components/Table.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import { formatWhen } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import { useClearAfter } from '../../shared/forms.js';
import type { Member, MemberRole } from '../../shared/types.js';

const ROLES: { role: Exclude<MemberRole, 'owner'>; label: string; note: string }[] = [
  { role: 'admin', label: 'Admin', note: 'everything but the members' },
  { role: 'operator', label: 'Operator', note: 'campaigns, agents, leads, imports, inbox and drafts' },
  { role: 'reviewer', label: 'Reviewer', note: 'the Drafts queue and the inbox' },
  { role: 'viewer', label: 'Viewer', note: 'reads everything, changes nothing' },
];

function RoleSelect({ id, value, onChange, disabled }: { id: string; value: string; onChange: (role: MemberRole) => void; disabled?: boolean }) {
  return (
    <select id={id} className="o-select" value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as MemberRole)}>
      {ROLES.map((r) => (
        <option key={r.role} value={r.role}>
          {r.label}: {r.note}
        </option>
      ))}
    </select>
  );
}

function MemberRow({ member }: { member: Member }) {
  const id = useId();
  const update = useToolMutation('update_member', ['list_members']);
  const disable = useToolMutation('disable_member', ['list_members']);
  const enable = useToolMutation('enable_member', ['list_members']);
  const canUpdate = useCan('update_member');
  const canDisable = useCan('disable_member');
  const canEnable = useCan('enable_member');
  const [confirming, setConfirming] = useState(false);
  const [enabled, setEnabled] = useState(false);
  const owner = member.role === 'owner';
  return (
    <tr>
      <td className="d-person">
        <Untrusted>{member.name}</Untrusted>
      </td>
      <td className="o-mono d-email">{member.email ?? '—'}</td>
      <td>
        {owner || member.disabledAt || !canUpdate ? (
          member.role
        ) : (
          <>
            <label htmlFor={`${id}-role`} className="sr-only">
              Role of {member.name}
            </label>
            <RoleSelect id={`${id}-role`} value={member.role} disabled={update.isPending} onChange={(role) => update.mutate({ memberId: member.id, role })} />
          </>
        )}
        <ErrorNote error={update.error ?? disable.error ?? enable.error} />
      </td>
      <td className="d-nowrap">{member.disabledAt ? `Disabled ${formatWhen(member.disabledAt)}` : `Since ${formatWhen(member.createdAt)}`}</td>
      <td>
        {owner ? null : member.disabledAt ? (
          canEnable ? (
            <button
              type="button"
              className="o-button"
              disabled={enable.isPending}
              onClick={() => enable.mutate({ memberId: member.id }, { onSuccess: () => setEnabled(true) })}
            >
              Enable<span className="sr-only"> {member.name}</span>
            </button>
          ) : null
        ) : canDisable ? (
          <button type="button" className="o-button" onClick={() => setConfirming(true)}>
            Disable<span className="sr-only"> {member.name}</span>
          </button>
        ) : null}
        {enabled && !member.disabledAt ? (
          <p role="status" className="o-alert o-alert-success">
            Enabled <Untrusted>{member.name}</Untrusted>. Their old sessions stay ended: run <code>npx outreach login --member {member.id}</code> and send them
            the new link.
          </p>
        ) : null}
        {confirming ? (
          <Confirm
            title={`Disable ${member.name}?`}
            confirmLabel="Disable"
            danger
            busy={disable.isPending}
            onCancel={() => setConfirming(false)}
            onConfirm={() => disable.mutate({ memberId: member.id }, { onSettled: () => setConfirming(false) })}
          >
            <p>Their dashboard sessions end at once and their login links stop working.</p>
          </Confirm>
        ) : null}
      </td>
    </tr>
  );
}

/** The owner's page: the members, their roles, adding one, disabling one and enabling them again. */
export function MembersPage() {
  const id = useId();
  const list = useTool('list_members', {});
  const add = useToolMutation('add_member', ['list_members']);
  const canAdd = useCan('add_member');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('operator');
  const [added, setAdded] = useState<Member | null>(null);

  const clearAfter = useClearAfter({ name, email, role });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sent = { name, email, role };
    add.mutate(
      { name: name.trim(), email: email.trim(), role },
      {
        onSuccess: (r) => {
          setAdded(r.member);
          clearAfter(sent, () => {
            setName('');
            setEmail('');
          });
        },
      },
    );
  };

  return (
    <>
      <h1 tabIndex={-1}>Members</h1>
      <p>Everyone who signs in to this dashboard, and what their role lets them do. The server holds each person to their role.</p>
      {canAdd ? (
        <form className="o-card o-stack" onSubmit={submit} aria-labelledby={`${id}-h`}>
          <h2 id={`${id}-h`}>Add a member</h2>
          <div className="o-row">
            <div className="o-field">
              <label htmlFor={`${id}-name`}>Name</label>
              <input id={`${id}-name`} className="o-input" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
            </div>
            <div className="o-field">
              <label htmlFor={`${id}-email`}>Email</label>
              <input id={`${id}-email`} type="email" className="o-input" required value={email} onChange={(e) => setEmail(e.target.value)} />
            </div>
            <div className="o-field">
              <label htmlFor={`${id}-role`}>Role</label>
              <RoleSelect id={`${id}-role`} value={role} onChange={setRole} />
            </div>
            <button type="submit" className="o-button o-button-primary" disabled={add.isPending}>
              Add member
            </button>
          </div>
          <ErrorNote error={add.error} prefix="Could not add the member" />
          {added ? (
            <p role="status" className="o-alert o-alert-success">
              Added <Untrusted>{added.name}</Untrusted>. To sign them in, run <code>npx outreach login --member {added.id}</code> on the server machine and send
              them the link.
            </p>
          ) : null}
        </form>
      ) : null}
      <ErrorNote error={list.error} />
      {list.isPending ? <Loading label="Loading members…" /> : null}
      {list.data ? (
        <Table caption="Members" card columns={['Name', 'Email', 'Role', 'Status', { hidden: 'Actions' }]}>
          {list.data.members.map((m) => (
            <MemberRow key={m.id} member={m} />
          ))}
        </Table>
      ) : null}
    </>
  );
}
