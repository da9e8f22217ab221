import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The write call under way in this async context, as the audit trail (./scope.ts) follows it.
 * Kept apart from the trail's writer so that any verb can name what it created without
 * importing what the trail imports.
 */
export interface AuditScope {
  /** Ids a verb created during the call, added to the event's targets. */
  created: string[];
  written: boolean;
  open: boolean;
}

export const currentAudit = new AsyncLocalStorage<AuditScope>();

/** A verb names the id it created, so the call's event lists it among its targets. */
export function noteAuditTarget(id: string): void {
  const scope = currentAudit.getStore();
  if (scope?.open && !scope.written) scope.created.push(id);
}
