/**
 * How a long verb says how far it got: `done` of `total` units, with an optional word on what
 * it is doing. A face turns it into what its protocol has (MCP's `notifications/progress`);
 * core knows nothing of that. Reporting must never fail the work, so a reporter never throws.
 */
export type ProgressReporter = (done: number, total: number, message?: string) => void;

/**
 * A reporter for `total` units that passes on about `steps` reports and the last one, not one
 * per unit: a batch of a hundred items tells its caller ten times, not a hundred.
 */
export function steppedProgress(report: ProgressReporter | undefined, total: number, steps = 10): ((done: number) => void) | undefined {
  if (!report) return undefined;
  const every = Math.max(1, Math.ceil(total / steps));
  let last = -1;
  return (done) => {
    if (done === last || (done % every !== 0 && done !== total)) return;
    last = done;
    try {
      report(done, total);
    } catch {
      // A face that can no longer report (its client went away) does not stop the work.
    }
  };
}
