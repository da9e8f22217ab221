import { afterEach, describe, expect, it, vi } from 'vitest';
import { Repeat } from '../../src/workers/repeat.js';

describe('Repeat (a worker polling round)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the round at once, then once per interval after each round, until stopped', () => {
    vi.useFakeTimers();
    const round = vi.fn();
    const repeat = new Repeat(1_000, round);
    expect(repeat.started).toBe(false);
    repeat.start();
    expect(repeat.started).toBe(true);
    expect(round).toHaveBeenCalledTimes(1);
    repeat.start();
    expect(round).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(999);
    expect(round).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(round).toHaveBeenCalledTimes(2);
    repeat.stop();
    expect(repeat.started).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(round).toHaveBeenCalledTimes(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops for good when a round stops it, and starts again when asked', () => {
    vi.useFakeTimers();
    let rounds = 0;
    const repeat: Repeat = new Repeat(500, () => {
      rounds += 1;
      if (rounds === 2) repeat.stop();
    });
    repeat.start();
    vi.advanceTimersByTime(5_000);
    expect(rounds).toBe(2);
    expect(vi.getTimerCount()).toBe(0);
    repeat.start();
    expect(rounds).toBe(3);
    vi.advanceTimersByTime(500);
    expect(rounds).toBe(4);
    repeat.stop();
  });

  it('never holds the process open', () => {
    const made: NodeJS.Timeout[] = [];
    const real = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const timer = real(fn, ms);
      made.push(timer);
      return timer;
    }) as typeof setTimeout);
    const repeat = new Repeat(60_000, () => {});
    repeat.start();
    spy.mockRestore();
    expect(made).toHaveLength(1);
    expect(made[0]?.hasRef()).toBe(false);
    repeat.stop();
  });
});
