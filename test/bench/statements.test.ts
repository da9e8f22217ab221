import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { recordStatements, replayWrites } from '../../bench/lib/statements.js';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The same writes on a fresh table, through a recorder kept in memory or spilled to a file. */
function record(spillTo?: string) {
  const db = new Sqlite(':memory:');
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT)');
  const recorder = recordStatements(db, spillTo ? { spillTo } : {});
  const insert = db.prepare('INSERT INTO t (id, name, note) VALUES (?, ?, ?)');
  const rename = db.prepare('UPDATE t SET name = @name WHERE id = @id');
  const read = db.prepare('SELECT name FROM t WHERE id = ?');
  insert.run(0, 'before', null); // not recorded: the recorder is not started
  recorder.start();
  for (let i = 1; i <= 3000; i++) insert.run(i, `name ${i}`, i % 7 === 0 ? 'a tab\there, a line\nthere, “quotes” and ü' : null);
  for (let i = 1; i <= 3000; i += 3) rename.run({ id: i, name: `renamed ${i}` });
  read.get(5);
  const recording = recorder.stop();
  insert.run(9999, 'after', null); // nor after it stopped
  recorder.restore();
  return { db, recording };
}

describe('bench: the statement recorder', () => {
  it('spills the writes to a file and reads back the same writes, in order, as memory keeps them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recorder-'));
    dirs.push(dir);
    const kept = record();
    const spilled = record(join(dir, 'writes.txt'));
    expect(spilled.recording.writeCount).toBe(4000);
    expect(kept.recording.writeCount).toBe(4000);
    expect(spilled.recording.writes()).toStrictEqual(kept.recording.writes());
    const calls = (r: typeof kept.recording) => r.uses.map((u) => `${u.reader ? 'read' : 'write'} ${u.calls} ${u.sql}`).sort();
    expect(calls(spilled.recording)).toStrictEqual(calls(kept.recording));
    expect(calls(kept.recording)).toHaveLength(3);

    // Replayed on an empty table, the spilled writes make the same rows.
    const replay = new Sqlite(':memory:');
    replay.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT)');
    replayWrites(replay, spilled.recording.writes(), 10);
    const rows = (db: Database.Database) => db.prepare('SELECT * FROM t WHERE id BETWEEN 1 AND 3000 ORDER BY id').all();
    expect(rows(replay)).toStrictEqual(rows(spilled.db));
    expect(rows(replay)).toHaveLength(3000);
  });
});
