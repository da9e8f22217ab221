import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { eachInOneTransaction, savepoint, stepsThenLast, transaction } from '../../src/db/tx.js';

/** A fresh database with one scratch table, written through the connection as the helpers see it. */
function scratch() {
  const db = openDatabase(':memory:');
  db.$client.exec('CREATE TABLE scratch (v TEXT NOT NULL)');
  const put = (v: string) => db.$client.prepare('INSERT INTO scratch (v) VALUES (?)').run(v);
  const values = () => db.$client.prepare('SELECT v FROM scratch ORDER BY rowid').pluck().all();
  return { db, put, values };
}

describe('transaction and savepoint', () => {
  it('a failing savepoint undoes its own writes alone; the transaction commits the rest', () => {
    const { db, put, values } = scratch();
    transaction(db, () => {
      put('before');
      expect(() =>
        savepoint(db, () => {
          put('undone');
          throw new Error('item failed');
        }),
      ).toThrow('item failed');
      expect(db.$client.inTransaction).toBe(true);
      savepoint(db, () => put('after'));
    });
    expect(values()).toEqual(['before', 'after']);
    expect(db.$client.inTransaction).toBe(false);
  });

  it('savepoints nest: an inner failure keeps the outer savepoint’s writes', () => {
    const { db, put, values } = scratch();
    transaction(db, () =>
      savepoint(db, () => {
        put('outer');
        expect(() =>
          savepoint(db, () => {
            put('inner');
            throw new Error('inner failed');
          }),
        ).toThrow('inner failed');
      }),
    );
    expect(values()).toEqual(['outer']);
  });

  it('a savepoint refuses to run with no transaction open, rather than commit on its own', () => {
    const { db, put, values } = scratch();
    expect(() => savepoint(db, () => put('alone'))).toThrow(/needs an open transaction/);
    expect(values()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
  });

  it('a nested transaction joins the open one with no savepoint: its writes stand or fall with it', () => {
    const { db, put, values } = scratch();
    transaction(db, () => {
      try {
        transaction(db, () => {
          put('joined');
          throw new Error('inner');
        });
      } catch {
        // The outer transaction goes on and commits what the inner one wrote.
      }
    });
    expect(values()).toEqual(['joined']);
    expect(() =>
      transaction(db, () => {
        put('gone');
        transaction(db, () => put('gone too'));
        throw new Error('outer');
      }),
    ).toThrow('outer');
    expect(values()).toEqual(['joined']);
  });
});

describe('eachInOneTransaction', () => {
  it('commits independent steps together and returns each result', () => {
    const { db, put, values } = scratch();
    const seen: number[] = [];
    const count = () => db.$client.prepare('SELECT count(*) FROM scratch').pluck().get() as number;
    const outcomes = eachInOneTransaction(db, [() => (put('a'), 1), () => (seen.push(count()), put('b'), 2)]);
    expect(outcomes).toEqual([
      { ok: true, value: 1 },
      { ok: true, value: 2 },
    ]);
    expect(values()).toEqual(['a', 'b']);
    // The second step saw the first one's write: one transaction.
    expect(seen).toEqual([1]);
  });

  it('a failing step fails alone: the others run again, each in its own transaction, and commit', () => {
    const { db, put, values } = scratch();
    const runs = { a: 0, c: 0 };
    const outcomes = eachInOneTransaction(db, [
      () => (runs.a++, put('a'), 'a'),
      () => {
        put('b');
        throw new Error('step b cannot be applied');
      },
      () => (runs.c++, put('c'), 'c'),
    ]);
    expect(outcomes[0]).toEqual({ ok: true, value: 'a' });
    expect(outcomes[1]).toMatchObject({ ok: false });
    expect(String((outcomes[1] as { err: unknown }).err)).toContain('step b cannot be applied');
    expect(outcomes[2]).toEqual({ ok: true, value: 'c' });
    // The failing step's own write is gone; the group's first attempt left nothing behind.
    expect(values()).toEqual(['a', 'c']);
    // The steps before the failing one ran twice, the ones after it once.
    expect(runs).toEqual({ a: 2, c: 1 });
    expect(db.$client.inTransaction).toBe(false);
  });
});

describe('stepsThenLast', () => {
  const count = (db: ReturnType<typeof scratch>['db']) => db.$client.prepare('SELECT count(*) FROM scratch').pluck().get() as number;

  it('commits the steps and the last write in one transaction, the last seeing every step', () => {
    const { db, put, values } = scratch();
    const r = stepsThenLast(db, [() => (put('a'), 1), () => (put('b'), 2)], () => (put('cursor'), count(db)));
    expect(r).toEqual({
      outcomes: [
        { ok: true, value: 1 },
        { ok: true, value: 2 },
      ],
      last: 3,
    });
    expect(values()).toEqual(['a', 'b', 'cursor']);
  });

  it('a failing step is left out with its own writes; the others and the last write commit together', () => {
    const { db, put, values } = scratch();
    const r = stepsThenLast(
      db,
      [
        () => (put('a'), 'a'),
        () => {
          put('b');
          throw new Error('step b cannot be applied');
        },
        () => (put('c'), 'c'),
      ],
      () => put('cursor'),
    );
    expect(r.outcomes.map((o) => o.ok)).toEqual([true, false, true]);
    expect(String((r.outcomes[1] as { err: unknown }).err)).toContain('step b cannot be applied');
    // The first run, stopped at b, left nothing behind: a is written once.
    expect(values()).toEqual(['a', 'c', 'cursor']);
    expect(db.$client.inTransaction).toBe(false);
  });

  it('a throw from the last write commits nothing of the steps', () => {
    const { db, put, values } = scratch();
    expect(() =>
      stepsThenLast(db, [() => put('a'), () => put('b')], () => {
        throw new Error('the cursor cannot be written');
      }),
    ).toThrow('the cursor cannot be written');
    expect(values()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
  });

  it('an error that ends the transaction (SQLite rolls it back itself) commits nothing, not even the steps before it', () => {
    const { db, put, values } = scratch();
    db.$client.exec("CREATE TRIGGER scratch_full BEFORE INSERT ON scratch WHEN NEW.v = 'full' BEGIN SELECT RAISE(ROLLBACK, 'database or disk is full'); END");
    expect(() => stepsThenLast(db, [() => put('a'), () => put('full'), () => put('c')], () => put('cursor'))).toThrow('database or disk is full');
    expect(values()).toEqual([]);
    expect(db.$client.inTransaction).toBe(false);
  });

  it('inside an open transaction a failing step is undone alone, and the outer transaction keeps its own writes', () => {
    const { db, put, values } = scratch();
    transaction(db, () => {
      put('outer');
      const r = stepsThenLast(
        db,
        [
          () => put('a'),
          () => {
            put('b');
            throw new Error('b fails');
          },
        ],
        () => put('cursor'),
      );
      expect(r.outcomes.map((o) => o.ok)).toEqual([true, false]);
    });
    expect(values()).toEqual(['outer', 'a', 'cursor']);
  });
});
