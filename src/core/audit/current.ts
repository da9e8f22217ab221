import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The write call under way in this async context, as the audit trail (./scope.ts) follows it.
 * Kept apart from the trail's writer so that any verb can name what it created without
 * importing what the trail imports.
 */
export interface AuditScope {
  /** Ids a verb created during the call, added to the event's targets. */
  created: string[];
  /** Ids the call named that a batch found nowhere, left out of the event's targets. */
  missing: string[];
  written: boolean;
  open: boolean;
}

export const currentAudit = new AsyncLocalStorage<AuditScope>();

/** A verb names the id it created, so the call's event lists it among its targets. */
export function noteAuditTarget(id: string): void {
  const scope = currentAudit.getStore();
  if (scope?.open && !scope.written) scope.created.push(id);
}

/**
 * A batch verb names an id of its input that it found nowhere (an item answered `not_found`;
 * as given and as the verb read it), so the call's event, written when the batch changed other
 * rows, does not list it as a target.
 */
export function noteAuditMissing(...ids: (string | undefined)[]): void {
  const scope = currentAudit.getStore();
  if (scope?.open && !scope.written) for (const id of ids) if (id !== undefined) scope.missing.push(id);
}
