import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface ConfirmProps {
  /** The question, e.g. "Approve 12 drafts?". */
  title: string;
  /** What will happen, in counts (per sender, per kind). */
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
  danger?: boolean;
}

/**
 * A confirmation in place (an alertdialog, not a modal): it takes the focus on its confirm
 * button when it opens, Escape cancels, and the focus goes back where it was when it closes.
 */
export function Confirm({ title, children, confirmLabel, onConfirm, onCancel, busy = false, danger = false }: ConfirmProps) {
  const id = useId();
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    confirmRef.current?.focus();
    return () => {
      if (before?.isConnected && !before.hasAttribute('disabled')) before.focus();
    };
  }, []);
  return (
    <div
      role="alertdialog"
      aria-labelledby={`${id}-t`}
      aria-describedby={`${id}-d`}
      className="o-alert o-alert-warning o-confirm"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <p>
        <strong id={`${id}-t`}>{title}</strong>
      </p>
      <div id={`${id}-d`}>{children}</div>
      <div className="o-row">
        <button
          ref={confirmRef}
          type="button"
          className={danger ? 'o-button o-button-danger' : 'o-button o-button-primary'}
          disabled={busy}
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
        <button type="button" className="o-button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}
