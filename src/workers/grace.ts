/**
 * Waits for a worker's work in flight at most `ms`: `idle` when it settled in time, `late` when
 * the grace period ran out first (the worker then leaves what is still running unrecorded, and
 * its lease makes it due again after a restart). The timer never outlives the wait.
 */
export async function settledWithin(work: Promise<unknown>, ms: number): Promise<'idle' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  try {
    return await Promise.race([work.then(() => 'idle' as const), grace]);
  } finally {
    clearTimeout(timer);
  }
}
