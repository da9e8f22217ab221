import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { pauseCampaign } from '../../src/core/campaigns/lifecycle.js';
import { createCampaign } from '../../src/core/campaigns/manage.js';
import { deleteLeadsBatch } from '../../src/core/leads/delete.js';
import { importLeads, previewImport, mapColumns, detectDelimiter } from '../../src/core/imports/csv.js';
import { campaigns, creditBalance, leads } from '../../src/db/schema.js';
import { testCtx } from '../helpers.js';

const url = (i: number) => `https://www.linkedin.com/in/person-${i}`;
const leadsOf = (ctx: ReturnType<typeof testCtx>, campaignId: string) => ctx.db.select().from(leads).where(eq(leads.campaignId, campaignId)).all();
const credits = (ctx: ReturnType<typeof testCtx>) => ctx.db.select().from(creditBalance).get()!;
const balance = (ctx: ReturnType<typeof testCtx>) => credits(ctx).credits + credits(ctx).topUpCredits;

function setup(creditCount = 100) {
  const ctx = testCtx();
  ctx.db.update(creditBalance).set({ credits: creditCount, topUpCredits: 0 }).run();
  const campaign = createCampaign(ctx, { name: 'Import target', assignedTemplateId: 'tpl_intro' });
  return { ctx, id: campaign.id };
}

describe('CSV import', () => {
  it('reads a UTF-8 file with a BOM, CRLF line ends and quoted delimiters and newlines', async () => {
    const { ctx, id } = setup();
    const csv =
      '\uFEFFName,LinkedIn URL,Company,Title\r\n"Lovelace, Ada",https://linkedin.com/in/ada-l,"Analytical\r\nEngines, Ltd",CTO\r\n"Grace ""Amazing"" Hopper",https://www.linkedin.com/in/grace/,Navy,\r\n';
    const r = await importLeads(ctx, { campaignId: id, source: csv });
    expect(r.summary).toMatchObject({ total: 2, created: 2 });
    expect(r.delimiter).toBe(',');
    expect(r.unmappedColumns).toEqual([]);
    const rows = leadsOf(ctx, id);
    const ada = rows.find((l) => l.networkUrl === 'https://www.linkedin.com/in/ada-l')!;
    expect(ada.fullName).toBe('Lovelace, Ada');
    expect(ada.companyName).toBe('Analytical\r\nEngines, Ltd');
    expect(ada.jobTitle).toBe('CTO');
    expect(rows.find((l) => l.networkUrl === 'https://www.linkedin.com/in/grace')!.fullName).toBe('Grace "Amazing" Hopper');
  });

  it.each([
    ['semicolon', ';'],
    ['tab', '\t'],
    ['comma', ','],
  ] as const)('detects the %s delimiter from the header', async (_name, d) => {
    const { ctx, id } = setup();
    const csv = [['Profile URL', 'First Name', 'company_name'].join(d), [url(1), 'Ada', `"Engines${d} Ltd"`].join(d), [url(2), 'Bob', 'X'].join(d)].join('\n');
    const r = await importLeads(ctx, { campaignId: id, source: Readable.from([Buffer.from(csv)]) });
    expect(r.delimiter).toBe(d);
    expect(r.summary).toMatchObject({ total: 2, created: 2 });
    expect(leadsOf(ctx, id).find((l) => l.firstName === 'Ada')!.companyName).toBe(`Engines${d} Ltd`);
  });

  it('maps by name ignoring case, spaces and punctuation, takes --map, and lists unmapped columns', () => {
    const m = mapColumns(['LINKEDIN', 'first-name', 'Job Title', 'Notes', 'Company'], { Notes: 'personalization' });
    expect(m.map((c) => c.field)).toEqual(['networkUrl', 'firstName', 'jobTitle', 'personalization', 'companyName']);
    expect(mapColumns(['URL', 'Name', 'Title', 'Shoe size']).map((c) => c.field)).toEqual(['networkUrl', 'fullName', 'jobTitle', null]);
    expect(() => mapColumns(['URL'], { Missing: 'email' })).toThrow(/no column "Missing"/);
    // --map wins over an earlier column that maps to the same field by its name; that one is ignored.
    expect(mapColumns(['URL', 'LinkedIn', 'Name'], { LinkedIn: 'networkUrl' }).map((c) => c.field)).toEqual([null, 'networkUrl', 'fullName']);
    expect(mapColumns(['Website', 'Profile', 'Name', 'Title', 'Job Title'], { Profile: 'networkUrl', 'Job Title': 'jobTitle' }).map((c) => c.field)).toEqual([
      null,
      'networkUrl',
      'fullName',
      null,
      'jobTitle',
    ]);
    expect(detectDelimiter('"a;b",c,d')).toBe(',');
  });

  it('a file with no URL column is an error and writes nothing', async () => {
    const { ctx, id } = setup();
    await expect(importLeads(ctx, { campaignId: id, source: 'Name,Company\nAda,Engines\n' })).rejects.toMatchObject({
      code: 'validation_error',
      details: { fields: ['file'] },
    });
    expect(leadsOf(ctx, id)).toHaveLength(0);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get()!.importing).toBe(false);
  });

  it("a row with a bad or over-long field is that row's validation_error; the rest go in", async () => {
    const { ctx, id } = setup();
    const csv = `URL,First name\n${url(1)},Ada\nnot-a-url,Bob\n${url(3)},${'x'.repeat(121)}\n${url(4)},Dan\n${url(1)},Ada again\n`;
    const r = await importLeads(ctx, { campaignId: id, source: csv });
    expect(r.summary).toEqual({ total: 5, created: 2, duplicate: 1, excluded: 0, validation_error: 2, insufficient_credits: 0, failed: 0 });
    expect(r.creditsCharged).toBe(2);
  });

  it('the dry run writes and charges nothing and says how many credits a real run needs', async () => {
    const { ctx, id } = setup(3);
    const csv = `URL\n${Array.from({ length: 250 }, (_, i) => url(i)).join('\n')}\n${url(0)}\n`;
    const before = balance(ctx);
    const p = await previewImport(ctx, { campaignId: id, source: csv });
    expect(p.summary).toMatchObject({ total: 251, created: 250, duplicate: 1, insufficient_credits: 0 });
    expect(p.creditsNeeded).toBe(250);
    expect(p.creditsCharged).toBe(0);
    expect(leadsOf(ctx, id)).toHaveLength(0);
    expect(balance(ctx)).toBe(before);
    // A real run with 3 credits stops creating at the fourth new profile, as batch add does.
    const r = await importLeads(ctx, { campaignId: id, source: csv });
    expect(r.summary.created).toBe(3);
    expect(r.creditsCharged).toBe(3);
  });

  it('keeps the campaign importing while it runs: pause and batch-delete answer 409', async () => {
    const { ctx } = setup(1000);
    const running = 'cmp_running';
    const seen: string[] = [];
    const csv = `URL\n${Array.from({ length: 150 }, (_, i) => url(i)).join('\n')}\n`;
    await importLeads(ctx, {
      campaignId: running,
      source: csv,
      afterChunk: () => {
        expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, running)).get()!.importing).toBe(true);
        try {
          pauseCampaign(ctx, running);
        } catch (err) {
          seen.push((err as { code: string }).code);
        }
        try {
          deleteLeadsBatch(ctx, running, ['lead_x']);
        } catch (err) {
          seen.push((err as { code: string }).code);
        }
      },
    });
    expect(seen).toEqual(['conflict', 'conflict', 'conflict', 'conflict']);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, running)).get()!.importing).toBe(false);
  });

  it('after a crash mid-import, a re-run charges no credit twice; the same file again creates nothing', async () => {
    const { ctx, id } = setup(1000);
    const csv = `LinkedIn URL,First name\n${Array.from({ length: 350 }, (_, i) => `${url(i)},P${i}`).join('\n')}\n`;
    const start = balance(ctx);
    await expect(
      importLeads(ctx, {
        campaignId: id,
        source: csv,
        afterChunk: (i) => {
          if (i === 1) throw new Error('simulated crash');
        },
      }),
    ).rejects.toThrow('simulated crash');
    expect(leadsOf(ctx, id)).toHaveLength(200);
    expect(start - balance(ctx)).toBe(200);
    const again = await importLeads(ctx, { campaignId: id, source: csv });
    expect(again.summary).toMatchObject({ total: 350, created: 150, duplicate: 200 });
    expect(again.creditsCharged).toBe(150);
    expect(start - balance(ctx)).toBe(350);
    const third = await importLeads(ctx, { campaignId: id, source: csv });
    expect(third.summary).toMatchObject({ created: 0, duplicate: 350 });
    expect(third.creditsCharged).toBe(0);
    expect(start - balance(ctx)).toBe(350);
  });

  it('imports a 10,000-row file, streamed, with progress after each chunk', async () => {
    const { ctx, id } = setup(20_000);
    const lines = ['Name,LinkedIn URL,Company,Title,Unused'];
    for (let i = 0; i < 10_000; i++) lines.push(`Person ${i},${url(i)},Company ${i % 97},Engineer,${i}`);
    const progress: number[] = [];
    const t0 = performance.now();
    const r = await importLeads(ctx, {
      campaignId: id,
      source: Readable.from(Buffer.from(`${lines.join('\n')}\n`), { objectMode: false, highWaterMark: 16 * 1024 }),
      onProgress: (p) => progress.push(p.rowsDone),
    });
    const ms = performance.now() - t0;
    expect(r.summary).toMatchObject({ total: 10_000, created: 10_000 });
    expect(r.creditsCharged).toBe(10_000);
    expect(r.unmappedColumns).toEqual(['Unused']);
    expect(progress).toHaveLength(100);
    expect(progress.at(-1)).toBe(10_000);
    expect(ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get()!.totalLeads).toBe(10_000);
    expect(ms).toBeLessThan(30_000);
  });
});
