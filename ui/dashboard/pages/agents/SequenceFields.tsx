import type { Draft, DraftMessage } from './useAgentDraft.js';

export const MAX_MESSAGES = 10;

/**
 * The sequence an agent sends: the connection note, then messages after delays. Only this
 * component knows the sequence's shape; the page gives it the draft and takes its changes.
 */
export function SequenceFields({
  id,
  hintId,
  draft,
  onChange,
}: {
  /** A prefix for the fields' ids. */
  id: string;
  /** The id of the placeholder hint the text fields point to. */
  hintId: string;
  draft: Pick<Draft, 'connectionNote' | 'messages'>;
  onChange: (patch: Partial<Pick<Draft, 'connectionNote' | 'messages'>>) => void;
}) {
  const setMessage = (i: number, patch: Partial<DraftMessage>) => onChange({ messages: draft.messages.map((m, j) => (j === i ? { ...m, ...patch } : m)) });
  return (
    <>
      <div className="o-field">
        <label htmlFor={`${id}-note`}>Connection note (up to 300 characters; empty sends none)</label>
        <textarea
          id={`${id}-note`}
          className="o-textarea"
          maxLength={300}
          aria-describedby={hintId}
          value={draft.connectionNote ?? ''}
          onChange={(e) => onChange({ connectionNote: e.target.value })}
        />
      </div>
      <fieldset className="o-stack">
        <legend className="o-label">Messages after the invitation is accepted</legend>
        {draft.messages.map((m, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: messages have no ids; an edit keeps the position, and removal re-renders the list
          <div key={i} className="o-card">
            <div className="o-field">
              <label htmlFor={`${id}-m${i}`}>Message {i + 1}</label>
              <textarea
                id={`${id}-m${i}`}
                className="o-textarea"
                required
                maxLength={8000}
                aria-describedby={hintId}
                value={m.text}
                onChange={(e) => setMessage(i, { text: e.target.value })}
              />
            </div>
            <div className="o-row">
              <div className="o-field">
                <label htmlFor={`${id}-d${i}`}>Delay before message {i + 1} (hours)</label>
                <input
                  id={`${id}-d${i}`}
                  className="o-input"
                  type="number"
                  min={0}
                  max={720}
                  step={1}
                  required
                  value={m.delayHours}
                  onChange={(e) => setMessage(i, { delayHours: Number(e.target.value) })}
                />
              </div>
              <button type="button" className="o-button" onClick={() => onChange({ messages: draft.messages.filter((_, j) => j !== i) })}>
                Remove message {i + 1}
              </button>
            </div>
          </div>
        ))}
        <button
          type="button"
          className="o-button"
          disabled={draft.messages.length >= MAX_MESSAGES}
          onClick={() => onChange({ messages: [...draft.messages, { text: '', delayHours: 24 }] })}
        >
          Add a message
        </button>
      </fieldset>
    </>
  );
}
