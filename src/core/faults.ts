/**
 * Named points where a test can make a write fail, to prove what a real failure there leaves
 * behind (durable partial batches, released idempotency keys, `reconciliationFailed`).
 * Production contexts carry no `faults`, so every point is a no-op there.
 */
export type FaultPoint =
  /** Recording an idempotency key, inside its reservation transaction. */
  | 'idempotency.reserve'
  /** Storing a key's result after its request's work is done: the server stopped in between. */
  | 'idempotency.finalize'
  /** One batch-add item, after its charge and insert, inside its transaction. */
  | 'leads.add.item'
  /** One lead update (PATCH or batch item), after its writes, inside its transaction. */
  | 'leads.update.item'
  /** One batch-delete item, after its delete, inside its transaction. */
  | 'leads.delete.item'
  /** The campaign totals refresh that follows a batch delete. */
  | 'leads.delete.reconcile'
  /** A Lookalike launch, after its writes, inside its transaction (nothing lands). */
  | 'lookalike.enqueue'
  /** Right after a Lookalike launch committed: the commit landed but was reported as failed. */
  | 'lookalike.enqueue.commit'
  /** The read that finds out whether a launch reported as failed did commit. */
  | 'lookalike.enqueue.confirm'
  /** One page of Lookalike leads, after its inserts, inside its transaction. */
  | 'lookalike.page'
  /** The end of a Lookalike job, after the refund, inside its transaction. */
  | 'lookalike.finish'
  /** Recording a send_message that the provider accepted, inside its transaction. */
  | 'inbox.send.record'
  /** A dashboard import's progress, written with its chunk, inside the chunk's transaction. */
  | 'imports.progress';

export interface Faults {
  /** Throws to fail the operation at `point`; `subject` names what is being written (a lead id, a key). */
  hit(point: FaultPoint, subject: string): void;
}

/** Takes only the `faults` of a context, so this module does not import the context (no cycle). */
export const failpoint = (ctx: { faults?: Faults | undefined }, point: FaultPoint, subject: string): void => ctx.faults?.hit(point, subject);
