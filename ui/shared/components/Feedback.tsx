import type { ToolError } from '../seam.js';

/** A refused call, read out by screen readers as it appears. */
export function ErrorNote({ error, prefix }: { error: ToolError | Error | null | undefined; prefix?: string }) {
  if (!error) return null;
  const fields = 'details' in error ? (error.details as { fields?: unknown }).fields : undefined;
  return (
    <div role="alert" className="o-alert o-alert-error">
      {prefix ? `${prefix}: ` : ''}
      {error.message}
      {Array.isArray(fields) && fields.length > 0 ? <span className="o-muted"> (fields: {fields.join(', ')})</span> : null}
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" className="o-muted">
      {label}
    </p>
  );
}
