import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/core/campaigns/manage.js';
import { importLeads } from '../../src/core/imports/csv.js';
import { creditBalance, leads } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';

describe('CSV import: words are stored as given', () => {
  it("a row with a NUL in a field is that row's validation_error, naming the field; the other rows go in", async () => {
    const ctx = testCtx();
    ctx.db.update(creditBalance).set({ credits: 100, topUpCredits: 0 }).run();
    const { id } = createCampaign(ctx, { name: 'Words', assignedTemplateId: 'tpl_intro' });
    const csv = 'LinkedIn URL,Company\nhttps://www.linkedin.com/in/words-a,Acme\nhttps://www.linkedin.com/in/words-b,Ac\u0000me\n';
    const r = await importLeads(ctx, { campaignId: id, source: csv });
    expect(r.summary).toMatchObject({ total: 2, created: 1, validation_error: 1 });
    expect(r.rows).toEqual([
      expect.objectContaining({
        line: 3,
        status: 'validation_error',
        field: 'companyName',
        message: expect.stringMatching(/^companyName holds a NUL character/),
      }),
    ]);
    expect(
      ctx.db
        .select()
        .from(leads)
        .where(eq(leads.campaignId, id))
        .all()
        .map((l) => l.companyName),
    ).toEqual(['Acme']);
    expect(r.creditsCharged).toBe(1);
  });
});
