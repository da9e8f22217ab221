import { describe, expect, it } from 'vitest';
import { getConversation } from '../../src/core/conversations/threads.js';
import { TriageWorker } from '../../src/workers/triage/worker.js';
import { engineWorkspace, harness } from '../engine/helpers.js';

describe('the triage worker', () => {
  it('asks the model about every waiting reply, a batch at a time, and stops cleanly', async () => {
    const h = harness(
      engineWorkspace([
        { slug: 'quinn-sim-fast-accept-sim-replies-question', firstName: 'Quinn' },
        { slug: 'pat-sim-fast-accept-sim-replies-positive', firstName: 'Pat' },
        { slug: 'sam-sim-fast-accept-sim-replies-question', firstName: 'Sam' },
      ]),
    );
    const asked: string[] = [];
    h.ctx.triager = {
      suggestTag: async (req) => {
        asked.push(req.lead.name ?? '');
        return '{"tag":"Information request","confidence":0.7}';
      },
    };
    await h.runUntil(() => ['lead_1', 'lead_2', 'lead_3'].every((id) => h.lead(id).replied), 10 * 60_000);
    expect(asked).toEqual([]); // recording the replies asked nothing
    const worker = new TriageWorker(h.ctx, { batch: 2 });
    await worker.pass();
    expect(asked.sort()).toEqual(['Pat Test', 'Quinn Test', 'Sam Test']);
    for (const id of ['lead_1', 'lead_2', 'lead_3']) expect(getConversation(h.ctx, id).suggestion?.suggestedBy).toBe('model');
    await worker.stop();
  });
});
