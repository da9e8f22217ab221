import { describe, expect, it } from 'vitest';
import { withAudit, withAuditSync } from '../../src/core/audit/scope.js';
import { transaction } from '../../src/db/tx.js';
import { testCtx } from '../helpers.js';

const actor = { type: 'member' as const, id: 'usr_test', name: 'Tess' };
const call = { actor, action: 'test.write', targets: ['cmp_q4'], summary: 'A test write' };

describe('the audit write commits with the write it records', () => {
  const ctx = testCtx();
  const events = (): number => ctx.db.$client.prepare('SELECT count(*) FROM audit_events').pluck().get() as number;
  const rename = (name: string) => transaction(ctx.db, () => ctx.db.$client.prepare("UPDATE campaigns SET name = ? WHERE id = 'cmp_q4'").run(name));
  const nameNow = () => ctx.db.$client.prepare("SELECT name FROM campaigns WHERE id = 'cmp_q4'").pluck().get();

  it('writes one event in the first transaction that changed a row, none for a read-only one before it', async () => {
    const before = events();
    await withAudit(ctx, call, async () => {
      transaction(ctx.db, () => ctx.db.$client.prepare('SELECT 1').get());
      expect(events()).toBe(before);
      rename('Q4 renamed');
      expect(events()).toBe(before + 1);
      rename('Q4 again');
    });
    expect(events()).toBe(before + 1);
  });

  it('rolls the event back with a write that fails, and keeps none for the failed call', async () => {
    const before = events();
    const name = nameNow();
    await expect(
      withAudit(ctx, call, async () =>
        transaction(ctx.db, () => {
          ctx.db.$client.prepare("UPDATE campaigns SET name = 'never' WHERE id = 'cmp_q4'").run();
          throw new Error('boom');
        }),
      ),
    ).rejects.toThrow('boom');
    expect(nameNow()).toBe(name);
    expect(events()).toBe(before);
  });

  it('rolls the write back when its event cannot be written', () => {
    const name = nameNow();
    ctx.db.$client.exec("CREATE TEMP TRIGGER refuse_audit BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'no trail'); END");
    try {
      expect(() => withAuditSync(ctx, call, () => rename('lost'))).toThrow(/no trail/);
    } finally {
      ctx.db.$client.exec('DROP TRIGGER refuse_audit');
    }
    expect(nameNow()).toBe(name);
  });

  it('records work left running after the call returns under nobody', async () => {
    const before = events();
    let later: Promise<void> = Promise.resolve();
    await withAudit(ctx, call, async () => {
      rename('Q4 call');
      later = new Promise<void>((resolve) => setTimeout(resolve, 5)).then(() => void rename('Q4 background'));
    });
    await later;
    expect(events()).toBe(before + 1);
    expect(nameNow()).toBe('Q4 background');
  });
});
