import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { Table } from '../../shared/components/Table.js';
import { formatWhen } from '../../shared/format.js';
import { useCan } from '../../shared/access.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import { useClearAfter } from '../../shared/forms.js';
import { ShownOnce } from './Secret.js';
import { Untrusted } from '../../shared/components/Untrusted.js';
import type { ApiKey } from '../../shared/types.js';

/** The toolsets a key may be held to, as the server names them (core/auth/scope.ts). */
const TOOLSETS = [
  { key: 'standard', label: 'Standard tools (campaigns, leads, messages, insights)' },
  { key: 'manage', label: 'Management (campaigns, agents, accounts; drafts included)' },
  { key: 'drafts', label: 'Drafts (list and review)' },
  { key: 'triage', label: 'Triage (read inbox threads, suggest tags)' },
  { key: 'audit', label: 'Audit trail (read)' },
] as const;

/** A key's scope in words, for the table. */
export function scopeText(scope: ApiKey['scope'], campaignName: (id: string) => string): string {
  if (!scope) return 'Everything';
  const parts: string[] = [];
  if (scope.readOnly) parts.push('Read-only');
  if (scope.toolsets) parts.push(`Toolsets: ${scope.toolsets.join(', ')}`);
  if (scope.campaignIds) parts.push(`Campaigns: ${scope.campaignIds.map(campaignName).join(', ')}`);
  if (scope.expiresAt) parts.push(`${Date.parse(scope.expiresAt) <= Date.now() ? 'Expired' : 'Expires'} ${formatWhen(scope.expiresAt)}`);
  return parts.join(' · ');
}

/** API keys: create (the secret is shown once) with an optional scope, list with each key's scope, revoke. */
export function KeysPage() {
  const id = useId();
  const keys = useTool('list_api_keys', {});
  const campaigns = useTool('list_campaigns', { limit: 100 });
  const create = useToolMutation('create_api_key', ['list_api_keys']);
  const revoke = useToolMutation('revoke_api_key', ['list_api_keys']);
  const canCreate = useCan('create_api_key');
  const canRevoke = useCan('revoke_api_key');
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [toolsets, setToolsets] = useState<string[]>([]);
  const [campaignIds, setCampaignIds] = useState<string[]>([]);
  const [expires, setExpires] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const toggle = (list: string[], value: string, on: boolean) => (on ? [...list, value] : list.filter((v) => v !== value));
  const campaignName = (cid: string) => campaigns.data?.campaigns.find((c) => c.id === cid)?.name ?? cid;

  const clearAfter = useClearAfter({ name, readOnly, toolsets, campaignIds, expires });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const sent = { name, readOnly, toolsets, campaignIds, expires };
    const scope: Record<string, unknown> = {};
    if (readOnly) scope.readOnly = true;
    if (toolsets.length) scope.toolsets = toolsets;
    if (campaignIds.length) scope.campaignIds = campaignIds;
    // datetime-local is the person's local time; the server takes an instant.
    if (expires) scope.expiresAt = new Date(expires).toISOString();
    create.mutate(
      { ...(name.trim() ? { name: name.trim() } : {}), ...(Object.keys(scope).length ? { scope } : {}) },
      {
        onSuccess: (r) => {
          setSecret(r.secret);
          clearAfter(sent, () => {
            setName('');
            setReadOnly(false);
            setToolsets([]);
            setCampaignIds([]);
            setExpires('');
          });
        },
      },
    );
  };

  return (
    <>
      <h1 tabIndex={-1}>API keys</h1>
      <p>Integrations and MCP clients use these keys. A key never opens this dashboard.</p>
      {canCreate ? (
        <form className="o-card" onSubmit={submit} aria-labelledby={`${id}-h`}>
          <h2 id={`${id}-h`}>New key</h2>
          <div className="o-row">
            <div className="o-field">
              <label htmlFor={`${id}-name`}>Key name (optional)</label>
              <input id={`${id}-name`} className="o-input" maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
            </div>
          </div>
          <fieldset className="o-field">
            <legend>Scope (optional: a key without one reaches everything)</legend>
            <div className="o-row">
              <input id={`${id}-ro`} type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
              <label htmlFor={`${id}-ro`}>Read-only: every write is refused</label>
            </div>
            <fieldset className="o-field">
              <legend>Only these toolsets (none ticked: all)</legend>
              {TOOLSETS.map((t) => (
                <div key={t.key} className="o-row">
                  <input
                    id={`${id}-ts-${t.key}`}
                    type="checkbox"
                    checked={toolsets.includes(t.key)}
                    onChange={(e) => setToolsets(toggle(toolsets, t.key, e.target.checked))}
                  />
                  <label htmlFor={`${id}-ts-${t.key}`}>{t.label}</label>
                </div>
              ))}
            </fieldset>
            <fieldset className="o-field">
              <legend>Only these campaigns (none ticked: all; the key cannot see the others)</legend>
              {campaigns.data?.campaigns.length === 0 ? <p>No campaigns yet.</p> : null}
              {campaigns.data?.campaigns.map((c) => (
                <div key={c.id} className="o-row">
                  <input
                    id={`${id}-c-${c.id}`}
                    type="checkbox"
                    checked={campaignIds.includes(c.id)}
                    onChange={(e) => setCampaignIds(toggle(campaignIds, c.id, e.target.checked))}
                  />
                  <label htmlFor={`${id}-c-${c.id}`}>
                    <Untrusted>{c.name}</Untrusted>
                  </label>
                </div>
              ))}
            </fieldset>
            <div className="o-field">
              <label htmlFor={`${id}-exp`}>Expires (optional)</label>
              <input id={`${id}-exp`} className="o-input" type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />
            </div>
          </fieldset>
          <div>
            <button type="submit" className="o-button o-button-primary" disabled={create.isPending}>
              Create key
            </button>
          </div>
          <ErrorNote error={create.error} prefix="Could not create the key" />
        </form>
      ) : null}
      {secret ? <ShownOnce label="Your new API key" secret={secret} onDismiss={() => setSecret(null)} /> : null}
      <ErrorNote error={keys.error ?? revoke.error} />
      {keys.isPending ? <Loading label="Loading keys…" /> : null}
      {keys.data ? (
        <Table caption="API keys" card columns={['Name', 'Key', 'Environment', 'Created', 'Last used', 'Scope', 'Status']}>
          {keys.data.keys.length === 0 ? (
            <tr>
              <td colSpan={7}>No keys yet.</td>
            </tr>
          ) : null}
          {keys.data.keys.map((k) => {
            const label = k.name;
            return (
              <tr key={k.id}>
                <td>
                  <Untrusted>{k.name}</Untrusted>
                </td>
                <td className="o-mono">{k.prefix}…</td>
                <td>{k.environment}</td>
                <td>{formatWhen(k.createdAt)}</td>
                <td>{k.lastUsedAt ? formatWhen(k.lastUsedAt) : 'Never'}</td>
                <td>{scopeText(k.scope, campaignName)}</td>
                <td>
                  {k.revokedAt ? (
                    `Revoked ${formatWhen(k.revokedAt)}`
                  ) : !canRevoke ? (
                    'Active'
                  ) : confirming === k.id ? (
                    <span className="o-row" role="group" aria-label={`Confirm revoking ${label}`}>
                      <button
                        type="button"
                        className="o-button o-button-danger"
                        disabled={revoke.isPending}
                        onClick={() => revoke.mutate({ keyId: k.id }, { onSuccess: () => setConfirming(null) })}
                      >
                        Revoke {label} now
                      </button>
                      <button type="button" className="o-button" onClick={() => setConfirming(null)}>
                        Keep it
                      </button>
                    </span>
                  ) : (
                    <button type="button" className="o-button" onClick={() => setConfirming(k.id)}>
                      Revoke {label}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </Table>
      ) : null}
    </>
  );
}
