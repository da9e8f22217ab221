import { setTransactionHook, transaction } from '../../db/tx.js';
import type { Db } from '../../db/connection.js';
import type { Ctx } from '../context.js';
import { newSortableId } from '../ids.js';
import { resolveActor, type Actor, type ActorRef } from './actor.js';
import { auditStore } from './store.js';
import { currentAudit, type AuditScope } from './current.js';

/** A write as the trail records it: who, what, which ids. Never a secret or a message body. */
export interface AuditedCall {
  actor: ActorRef;
  /** The tool (`add_leads_batch`) or action (`members.add`). */
  action: string;
  targets: readonly string[];
  summary: string;
}

interface Scope extends AuditScope {
  ctx: Ctx;
  call: AuditedCall;
  /** Runs in the transaction of the call's first write, with its event (see withAudit). */
  onFirstWrite?: (() => void) | undefined;
}

const hooked = new WeakSet<Db>();

/**
 * Runs `fn` (a write tool's handler, or a CLI verb) with the trail watching: the first
 * transaction of the call that changes a row inserts the call's one event before it commits,
 * so the event and the write commit together or not at all. A call that wrote outside a
 * transaction gets its event when it returns successfully. A call that changed no row leaves
 * none (a batch whose every item was not found, a key revoked again): there is no change to
 * attribute. The connection's change count says so; another call's write in between only errs
 * toward an event. Either way a call leaves one event, or none when it changed nothing.
 * `onFirstWrite` runs in that same transaction, after the event: what must commit exactly when
 * the call's work first does (an idempotency key marked as begun) rides on it.
 */
export async function withAudit<T>(ctx: Ctx, call: AuditedCall, fn: () => T | Promise<T>, onFirstWrite?: () => void): Promise<T> {
  hook(ctx.db);
  const scope: Scope = { ctx, call, created: [], missing: [], written: false, open: true, onFirstWrite };
  const before = auditStore.totalChanges(ctx.db);
  try {
    const result = await currentAudit.run(scope, fn);
    if (!scope.written && auditStore.totalChanges(ctx.db) !== before) transaction(ctx.db, () => write(scope));
    return result;
  } finally {
    // Work the call started and left running (a background import) runs on without the scope.
    scope.open = false;
  }
}

/** `withAudit` for synchronous work (the CLI's verbs outside the tools): the same one event. */
export function withAuditSync<T>(ctx: Ctx, call: AuditedCall, fn: () => T): T {
  hook(ctx.db);
  const scope: Scope = { ctx, call, created: [], missing: [], written: false, open: true };
  const before = auditStore.totalChanges(ctx.db);
  try {
    const result = currentAudit.run(scope, fn);
    if (!scope.written && auditStore.totalChanges(ctx.db) !== before) transaction(ctx.db, () => write(scope));
    return result;
  } finally {
    scope.open = false;
  }
}

/** The actor of the write call under way in this async context on this database, or null (the engine, a read). */
export function currentActor(ctx: Ctx): Actor | null {
  const scope = currentAudit.getStore() as Scope | undefined;
  return scope?.open && scope.ctx.db === ctx.db ? resolveActor(ctx, scope.call.actor) : null;
}

/** Runs `fn` in one transaction that also holds its audit event (a CLI verb's database work). */
export const auditedTransaction = <T>(ctx: Ctx, call: AuditedCall, fn: () => T): T => withAuditSync(ctx, call, () => transaction(ctx.db, fn));

const live = (db: Db): Scope | undefined => {
  const scope = currentAudit.getStore() as Scope | undefined;
  return scope?.open && !scope.written && scope.ctx.db === db ? scope : undefined;
};

function hook(db: Db): void {
  if (hooked.has(db)) return;
  hooked.add(db);
  setTransactionHook(db, {
    begin: () => (live(db) ? auditStore.totalChanges(db) : undefined),
    end: (before) => {
      const scope = live(db);
      if (scope && typeof before === 'number' && auditStore.totalChanges(db) !== before) write(scope);
    },
  });
}

/** Caps what one event may carry, so a huge batch's ids do not bloat the trail. */
const MAX_TARGETS = 200;

function write(scope: Scope): void {
  const { ctx, call } = scope;
  const actor = resolveActor(ctx, call.actor);
  const missing = new Set(scope.missing);
  const targets = [...new Set([...call.targets.filter((id) => !missing.has(id)), ...scope.created])].slice(0, MAX_TARGETS);
  const now = ctx.clock.now();
  auditStore.insert(ctx.db, {
    id: newSortableId('aud', now),
    actorType: actor.type,
    actorId: actor.id,
    actorName: actor.name,
    action: call.action,
    targets: JSON.stringify(targets),
    summary: call.summary.slice(0, 300),
    at: now,
  });
  scope.written = true;
  scope.onFirstWrite?.();
}

/**
 * The ids a call names: every field named `…Id` (a string) or `…Ids` (strings), at the top of
 * its arguments or in the objects of a list there (a batch's items, whose `id` counts too). Only ids: no free text of
 * the input reaches the trail.
 */
export function targetsOf(input: unknown): string[] {
  const ids: string[] = [];
  collectIds(input, ids, true);
  return ids;
}

function collectIds(value: unknown, ids: string[], top: boolean): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const [field, v] of Object.entries(value)) {
    if ((/Id$/.test(field) || (!top && field === 'id')) && typeof v === 'string') ids.push(v);
    else if (/Ids$/.test(field) && Array.isArray(v)) for (const id of v) typeof id === 'string' && ids.push(id);
    else if (top && Array.isArray(v)) for (const item of v) collectIds(item, ids, false);
  }
}
