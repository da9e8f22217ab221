import { describe, expect, it, vi } from 'vitest';
import { Soon } from '../../src/workers/soon.js';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A Soon whose worker runs while `running` says so, with its round counted and no failure expected. */
function counted(running: () => boolean) {
  const round = vi.fn();
  return { round, soon: new Soon(running, round, () => {}) };
}

describe('Soon (a round asked for between polls)', () => {
  it('runs the round once on the next turn, however often it is asked, and again when asked after', async () => {
    const { round, soon } = counted(() => true);
    soon.ask();
    soon.ask();
    soon.ask();
    expect(round).not.toHaveBeenCalled();
    await nextTurn();
    expect(round).toHaveBeenCalledTimes(1);
    soon.ask();
    await nextTurn();
    expect(round).toHaveBeenCalledTimes(2);
  });

  it('does not run once the worker has stopped, and can be asked again when it runs', async () => {
    let active = true;
    const { round, soon } = counted(() => active);
    soon.ask();
    active = false;
    await nextTurn();
    expect(round).not.toHaveBeenCalled();
    active = true;
    soon.ask();
    await nextTurn();
    expect(round).toHaveBeenCalledTimes(1);
  });

  it('queues nothing when asked while the worker does not run (drained by hand), even if it starts before the turn', async () => {
    let active = false;
    const { round, soon } = counted(() => active);
    soon.ask();
    active = true;
    await nextTurn();
    expect(round).not.toHaveBeenCalled();
    soon.ask();
    await nextTurn();
    expect(round).toHaveBeenCalledTimes(1);
  });

  it('hands a failed round to its handler, and the next ask runs again', async () => {
    const failed = vi.fn();
    let calls = 0;
    const soon = new Soon(
      () => true,
      () => {
        calls += 1;
        if (calls === 1) throw new Error('the database is busy');
      },
      failed,
    );
    soon.ask();
    await nextTurn();
    expect(failed).toHaveBeenCalledTimes(1);
    expect(failed).toHaveBeenCalledWith(expect.objectContaining({ message: 'the database is busy' }));
    soon.ask();
    await nextTurn();
    expect(calls).toBe(2);
    expect(failed).toHaveBeenCalledTimes(1);
  });
});
