import { useEffect, useRef, useState } from 'react';

/** A secret the server shows once: focused, selectable, with a copy button and a warning. */
export function ShownOnce({ label, secret, onDismiss }: { label: string; secret: string; onDismiss: () => void }) {
  const box = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new secret takes the focus again
  useEffect(() => box.current?.focus(), [secret]);
  return (
    <div ref={box} tabIndex={-1} role="region" aria-label={label} className="o-secret o-stack">
      <p>
        <strong>{label}</strong> — copy it now. It is shown only once and cannot be read again.
      </p>
      <p>
        <code className="o-mono" data-testid="secret">
          {secret}
        </code>
      </p>
      <div className="o-row">
        <button
          type="button"
          className="o-button"
          onClick={async () => {
            await navigator.clipboard?.writeText(secret);
            setCopied(true);
          }}
        >
          Copy
        </button>
        <button type="button" className="o-button" onClick={onDismiss}>
          I have stored it
        </button>
        {copied ? <span role="status">Copied.</span> : null}
      </div>
    </div>
  );
}
