import { describe, expect, it } from 'vitest';
import { CommitGroup } from '../../src/core/outreach/commit-group.js';
import { exclusions } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';

const url = (n: number) => `https://www.linkedin.com/in/group-${n}`;

describe('CommitGroup', () => {
  it('commits the steps queued in one turn of the event loop together, each caller getting its own result', async () => {
    const ctx = testCtx();
    const begins: number[] = [];
    const group = new CommitGroup(ctx.db);
    const insert = (n: number) => () => {
      begins.push(ctx.db.$client.inTransaction ? 1 : 0);
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(n), createdAt: n })
        .run();
      return n * 10;
    };
    const results = await Promise.all([group.run(insert(1)), group.run(insert(2)), group.run(insert(3))]);
    expect(results).toEqual([10, 20, 30]);
    // Every step ran inside a transaction (one: see the rollback test below).
    expect(begins).toEqual([1, 1, 1]);
    expect(ctx.db.$client.inTransaction).toBe(false);
    expect(
      ctx.db
        .select()
        .from(exclusions)
        .all()
        .filter((e) => e.networkUrl.includes('group-'))
        .map((e) => e.createdAt),
    ).toEqual([1, 2, 3]);
  });

  it('runs steps in one transaction: a step sees the writes of the steps before it, and nothing is visible before the commit', async () => {
    const ctx = testCtx();
    const group = new CommitGroup(ctx.db);
    const seen: number[] = [];
    const count = () =>
      ctx.db
        .select()
        .from(exclusions)
        .all()
        .filter((e) => e.networkUrl.includes('group-')).length;
    const first = group.run(() =>
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(1), createdAt: 1 })
        .run(),
    );
    const second = group.run(() => seen.push(count()));
    // Queued, not yet run.
    expect(count()).toBe(0);
    await Promise.all([first, second]);
    expect(seen).toEqual([1]);
  });

  it('a failing step fails alone: the group is rolled back and the other steps run again and commit', async () => {
    const ctx = testCtx();
    const group = new CommitGroup(ctx.db);
    let runsOfFirst = 0;
    const first = group.run(() => {
      runsOfFirst++;
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(1), createdAt: 1 })
        .run();
      return 'first';
    });
    const failing = group.run(() => {
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(2), createdAt: 2 })
        .run();
      // A duplicate key: this step cannot be applied.
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(2), createdAt: 2 })
        .run();
    });
    const third = group.run(
      () =>
        ctx.db
          .insert(exclusions)
          .values({ networkUrl: url(3), createdAt: 3 })
          .run().changes,
    );
    await expect(first).resolves.toBe('first');
    await expect(failing).rejects.toThrow(/UNIQUE/);
    await expect(third).resolves.toBe(1);
    expect(runsOfFirst).toBe(2);
    const stored = ctx.db
      .select()
      .from(exclusions)
      .all()
      .filter((e) => e.networkUrl.includes('group-'))
      .map((e) => e.createdAt);
    // The failing step's first insert was undone with it.
    expect(stored.sort()).toEqual([1, 3]);
  });

  it('steps queued after a flush go in the next group', async () => {
    const ctx = testCtx();
    const group = new CommitGroup(ctx.db);
    await group.run(() =>
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(1), createdAt: 1 })
        .run(),
    );
    await group.run(() =>
      ctx.db
        .insert(exclusions)
        .values({ networkUrl: url(2), createdAt: 2 })
        .run(),
    );
    expect(
      ctx.db
        .select()
        .from(exclusions)
        .all()
        .filter((e) => e.networkUrl.includes('group-')),
    ).toHaveLength(2);
  });
});
