import { afterEach, describe, expect, it, vi } from 'vitest';
import { FOLLOW_MAX_MS, followWithProgress, followedCalls } from '../../src/mcp/follow.js';
import type { Tool } from '../../src/tools/define.js';
import { testCtx } from '../helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('a followed call', () => {
  it('answers after FOLLOW_MAX_MS at most, though the work goes on, so a client timing out at 60 s still gets its answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const ctx = testCtx();
    const reports: [number, number | undefined, string | undefined][] = [];
    let reads = 0;
    // A build that never ends while it is followed.
    const tool = {
      task: {
        follow: () => {
          reads += 1;
          return { done: false, step: { done: 1, total: 6 }, message: 'Searching' };
        },
      },
    } as unknown as Tool;
    let settled = false;
    const call = followWithProgress(ctx, tool, {}, (done, total, message) => reports.push([done, total, message]), {
      keyId: 'key_test',
      requestId: 1,
      signal: new AbortController().signal,
    }).then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(FOLLOW_MAX_MS - 1_000);
    expect(settled).toBe(false);
    expect(followedCalls(ctx)).toBe(1);
    await vi.advanceTimersByTimeAsync(2_000);
    await call;
    expect(settled).toBe(true);
    expect(followedCalls(ctx)).toBe(0);
    expect(FOLLOW_MAX_MS).toBeLessThan(60_000);
    // It kept reading the work (every two seconds without a change) and reporting each read.
    expect(reads).toBeGreaterThan(10);
    expect(reports.length).toBe(reads);
  });
});
