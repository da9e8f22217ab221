import { describe, expect, it } from 'vitest';
import { listDrafts } from '../../src/core/drafts/list.js';
import { updateDrafts } from '../../src/core/drafts/update.js';
import { accounts } from '../../src/db/schema.js';
import { DAY, HOUR, MINUTE } from '../engine/helpers.js';
import { stepsHarness, type StepsHarness } from '../sequences/runner-helpers.js';

const drafts = (h: StepsHarness) => listDrafts(h.ctx, 'secret', { campaignId: 'cmp', limit: 100 }).drafts;
const overdue = (h: StepsHarness) => h.audit().violations.filter((v) => v.rule === 'approved_draft_overdue');

async function run(h: StepsHarness, span: number, step = 10 * MINUTE): Promise<void> {
  for (let t = 0; t < span; t += step) {
    await h.tick();
    h.ctx.clock.advance(step);
  }
}

describe('the auditor: no approved draft outlives its sender’s next working window', () => {
  it('flags an approved draft nobody sent or skipped past that window, and not one the engine sent', async () => {
    const h = await stepsHarness([{ kind: 'invite', note: 'Hi {{firstName}}' }], [{ slug: 'ben-sim-never-accepts', firstName: 'Ben' }], {
      approval: 'required',
    });
    await run(h, HOUR);
    const [draft] = drafts(h);
    updateDrafts(h.ctx, [{ id: draft!.id, status: 'approved', revision: draft!.revision }]);
    // Within the window: not yet a breach.
    expect(overdue(h)).toEqual([]);
    // No engine runs for three days (always-on hours: each day is a window): the draft outlived it.
    h.ctx.clock.advance(3 * DAY);
    expect(overdue(h)).toEqual([expect.objectContaining({ accountId: 'acc_a', detail: expect.stringContaining(draft!.id) })]);
    // The engine sends it: nothing approved is left, nothing to flag.
    await run(h, HOUR);
    expect(drafts(h).map((d) => d.status)).toEqual(['sent']);
    expect(overdue(h)).toEqual([]);
  });

  it('an approved InMail whose sender lost Sales Navigator leaves no breach: the engine skips it in time', async () => {
    const h = await stepsHarness(
      [{ kind: 'inmail', subject: 'Hi', text: 'Hello {{firstName}}' }, { kind: 'visit' }],
      [{ slug: 'ben-sim-never-accepts', firstName: 'Ben' }],
      {
        approval: 'required',
      },
    );
    await run(h, HOUR);
    const [draft] = drafts(h);
    updateDrafts(h.ctx, [{ id: draft!.id, status: 'approved' }]);
    h.ctx.db.update(accounts).set({ hasSalesNavigator: false }).run();
    await run(h, 3 * DAY, HOUR);
    expect(drafts(h).map((d) => [d.status, d.skipReason])).toEqual([['skipped', 'no_sales_navigator']]);
    expect(h.audit().violations).toEqual([]);
  });
});
