import { useId, useState, type FormEvent } from 'react';
import { ErrorNote, Loading } from '../../shared/components/Feedback.js';
import { formatWhen } from '../../shared/format.js';
import { useTool, useToolMutation } from '../../shared/hooks.js';
import { ShownOnce } from './Secret.js';
import { Untrusted } from '../../shared/components/Untrusted.js';

/** API keys: create (the secret is shown once), list, revoke. */
export function KeysPage() {
  const id = useId();
  const keys = useTool('list_api_keys', {});
  const create = useToolMutation('create_api_key', ['list_api_keys']);
  const revoke = useToolMutation('revoke_api_key', ['list_api_keys']);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { ...(name.trim() ? { name: name.trim() } : {}) },
      {
        onSuccess: (r) => {
          setSecret(r.secret);
          setName('');
        },
      },
    );
  };

  return (
    <>
      <h1 tabIndex={-1}>API keys</h1>
      <p>Integrations and MCP clients use these keys. A key never opens this dashboard.</p>
      <form className="o-card" onSubmit={submit} aria-labelledby={`${id}-h`}>
        <h2 id={`${id}-h`}>New key</h2>
        <div className="o-row">
          <div className="o-field">
            <label htmlFor={`${id}-name`}>Key name (optional)</label>
            <input id={`${id}-name`} className="o-input" maxLength={120} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <button type="submit" className="o-button o-button-primary" disabled={create.isPending}>
            Create key
          </button>
        </div>
        <ErrorNote error={create.error} prefix="Could not create the key" />
      </form>
      {secret ? <ShownOnce label="Your new API key" secret={secret} onDismiss={() => setSecret(null)} /> : null}
      <ErrorNote error={keys.error ?? revoke.error} />
      {keys.isPending ? <Loading label="Loading keys…" /> : null}
      {keys.data ? (
        <div className="o-card o-table-wrap">
          <table className="o-table">
            <caption className="sr-only">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Environment</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.length === 0 ? (
                <tr>
                  <td colSpan={6}>No keys yet.</td>
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
                    <td>
                      {k.revokedAt ? (
                        `Revoked ${formatWhen(k.revokedAt)}`
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
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
