import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compareDatabases, recordStatements, writeReplayer } from '../../bench/lib/statements.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
const SCHEMA = 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT); CREATE TABLE k (a TEXT, b INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID';
const fresh = () => {
  const db = new Sqlite(':memory:');
  db.exec(SCHEMA);
  return db;
};

describe('bench: the statement recorder', () => {
  it('hands over the writes as they come, in order, and counts every statement until taken', () => {
    const db = fresh();
    const recorder = recordStatements(db);
    const insert = db.prepare('INSERT INTO t (id, name, note) VALUES (?, ?, ?)');
    const rename = db.prepare('UPDATE t SET name = @name WHERE id = @id');
    const read = db.prepare('SELECT name FROM t WHERE id = ?');
    insert.run(0, 'before', null); // not recorded: the recorder is not started
    recorder.start();
    insert.run(1, 'one', 'a tab\there, a line\nthere, “quotes” and ü');
    const params = { id: 1, name: 'renamed' };
    rename.run(params);
    params.name = 'changed after the call'; // the write keeps the value it was called with
    read.get(1);
    // A write that returns rows (RETURNING, called with get) is a write all the same.
    const bump = db.prepare('UPDATE t SET note = coalesce(note, 0) + 1 WHERE id = ? RETURNING note');
    expect(bump.reader).toBe(true);
    expect(bump.get(0)).toEqual({ note: '1' });
    expect(recorder.takeWrites()).toStrictEqual([
      { sql: 'INSERT INTO t (id, name, note) VALUES (?, ?, ?)', params: JSON.stringify([1, 'one', 'a tab\there, a line\nthere, “quotes” and ü']) },
      { sql: 'UPDATE t SET name = @name WHERE id = @id', params: JSON.stringify([{ id: 1, name: 'renamed' }]) },
      { sql: 'UPDATE t SET note = coalesce(note, 0) + 1 WHERE id = ? RETURNING note', params: JSON.stringify([0]) },
    ]);
    expect(recorder.takeWrites()).toStrictEqual([]);
    insert.run(2, 'two', null);
    const uses = recorder.takeUses();
    expect(uses.map((u) => `${u.reader ? 'read' : 'write'} ${u.calls}`).sort()).toStrictEqual(['read 1', 'write 1', 'write 1', 'write 2']);
    expect(recorder.takeUses()).toStrictEqual([]);
    const recording = recorder.stop();
    expect(recording.writeCount).toBe(4);
    expect(recording.writes().map((w) => w.params)).toStrictEqual([JSON.stringify([2, 'two', null])]);
    insert.run(9999, 'after', null); // nor after it stopped
    recorder.restore();
    expect(db.prepare).toBe(Sqlite.prototype.prepare);
  });

  it('replays writes taken tick by tick onto a copy, which ends on the same rows; a missed write shows', () => {
    const db = fresh();
    const copy = fresh();
    const recorder = recordStatements(db);
    const replay = writeReplayer(copy);
    const insert = db.prepare('INSERT INTO t (id, name, note) VALUES (?, ?, ?)');
    const rename = db.prepare('UPDATE t SET name = @name WHERE id = @id');
    const pair = db.prepare('INSERT INTO k (a, b) VALUES (?, ?)');
    const bumpNote = db.prepare("UPDATE t SET note = coalesce(note, '') || '+' WHERE id = ? RETURNING note");
    recorder.start();
    let transactions = 0;
    for (let tick = 0; tick < 30; tick++) {
      for (let i = tick * 100 + 1; i <= (tick + 1) * 100; i++) {
        insert.run(i, `name ${i}`, i % 7 === 0 ? 'note' : null);
        if (i % 3 === 0) rename.run({ id: i - 1, name: `renamed ${i - 1}` });
        pair.run(`a${i % 5}`, i);
        if (i % 10 === 0) bumpNote.get(i);
      }
      const t = replay(recorder.takeWrites(), 10);
      expect(t.cpuMs).toBeGreaterThanOrEqual(0);
      expect(t.ms).toBeGreaterThan(0);
      transactions += 10;
    }
    expect(transactions).toBe(300);
    expect(compareDatabases(db, copy)).toStrictEqual({ tables: 2, rows: 6000, differing: [] });

    // A write the recorder never saw (prepared before it was installed, on another connection's
    // statement, or while it was off) leaves the copy behind: the comparison names the table.
    recorder.stop();
    db.prepare('UPDATE t SET note = ? WHERE id = ?').run('unseen', 42);
    expect(compareDatabases(db, copy)).toStrictEqual({ tables: 2, rows: 6000, differing: ['t'] });
    recorder.restore();
  });
});
