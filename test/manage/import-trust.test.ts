import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign } from '../../src/core/campaigns/manage.js';
import { addExclusions } from '../../src/core/exclusions/exclusions.js';
import { importLeads, previewImport, rejectedRowsCsv } from '../../src/core/imports/csv.js';
import { creditBalance, leads } from '../../src/db/schema.js';
import { fixture, startTestServer, testCtx, type TestServer } from '../helpers.js';
import { BIN, childEnv } from '../imports/children.js';
import { appCall, fakeUiDir, login } from '../web/helpers.js';

/** The import's promises: the credits a run needs and has, every row not created named, no-scheme URLs, a stop at a malformed line. */

const url = (i: number | string) => `https://www.linkedin.com/in/trust-${i}`;

function setup(creditCount: number) {
  const ctx = testCtx();
  ctx.db.update(creditBalance).set({ credits: creditCount, topUpCredits: 0 }).run();
  const campaign = createCampaign(ctx, { name: 'Trust', assignedTemplateId: 'tpl_intro' });
  return { ctx, id: campaign.id };
}
const leadsOf = (ctx: ReturnType<typeof testCtx>, id: string) => ctx.db.select().from(leads).where(eq(leads.campaignId, id)).all();

describe('the dry run says whether the credits are there', () => {
  it('reports creditsNeeded, creditsAvailable and shortOfCredits, exactly as a real run would leave them', async () => {
    const { ctx, id } = setup(3);
    addExclusions(ctx, [url('excluded')]);
    // 6 new profiles, a duplicate of row 2 and an excluded one after them.
    const rows = [url(1), url(2), url(3), url(4), url(5), url(2), url('excluded'), url(6)];
    const csv = `URL\n${rows.join('\n')}\n`;
    const preview = await previewImport(ctx, { campaignId: id, source: csv });
    expect(preview).toMatchObject({ creditsNeeded: 6, creditsAvailable: 3, creditsCharged: 0 });
    expect(preview.summary).toMatchObject({ total: 8, created: 6, duplicate: 1, excluded: 1, insufficient_credits: 0 });
    // Batch add stops at the first row it cannot pay: every later row of that chunk is left out too.
    const real = await importLeads(ctx, { campaignId: id, source: csv });
    expect(preview.shortOfCredits).toBe(real.summary.insufficient_credits);
    expect(real.summary.insufficient_credits).toBe(5);
    expect(leadsOf(ctx, id)).toHaveLength(3);
  });

  it('is not short when the balance covers the run, top-up included', async () => {
    const { ctx, id } = setup(2);
    ctx.db.update(creditBalance).set({ topUpCredits: 1 }).run();
    const preview = await previewImport(ctx, { campaignId: id, source: `URL\n${url(1)}\n${url(2)}\n${url(3)}\n` });
    expect(preview).toMatchObject({ creditsNeeded: 3, creditsAvailable: 3, shortOfCredits: 0 });
    expect(leadsOf(ctx, id)).toHaveLength(0);
  });
});

describe('every row not created is named by its line', () => {
  const FILE = [
    'Name,LinkedIn URL,Title', // line 1
    `Ada,${url('a')},CTO`, // 2: created
    '', // 3: blank, read past
    `"Grace\nHopper",${url('b')},"Rear\r\nAdmiral"`, // 4-6: created, spans three lines
    'No URL,,Nobody', // 7: missing URL
    `Company,https://www.linkedin.com/company/acme,Page`, // 8: not a profile
    `Long,${url('c')},${'T'.repeat(201)}`, // 9: title too long
    `Ada again,${url('a')},CTO`, // 10: duplicate
    `Excluded,${url('x')},Someone`, // 11: excluded
    `Bare,linkedin.com/in/trust-bare,Bare`, // 12: created, no scheme
    `Bare www,www.linkedin.com/in/trust-bare2/,Bare`, // 13: created, no scheme, www
  ].join('\n');

  it('with its status, field and reason, and the CSV of them keeps the columns and adds the reason', async () => {
    const { ctx, id } = setup(100);
    addExclusions(ctx, [url('x')]);
    const r = await importLeads(ctx, { campaignId: id, source: FILE });
    expect(r.summary).toMatchObject({ total: 9, created: 4, duplicate: 1, excluded: 1, validation_error: 3 });
    expect(r.rows.map(({ cells: _c, ...row }) => row)).toEqual([
      { line: 7, status: 'validation_error', field: 'networkUrl', message: expect.stringMatching(/^networkUrl is missing/) },
      { line: 8, status: 'validation_error', field: 'networkUrl', message: expect.stringMatching(/^networkUrl is not a personal profile URL/) },
      { line: 9, status: 'validation_error', field: 'jobTitle', message: 'jobTitle is 201 characters; at most 200 are allowed.' },
      { line: 10, status: 'duplicate', message: expect.stringContaining('Already in this campaign') },
      { line: 11, status: 'excluded', message: expect.stringContaining('exclusion list') },
    ]);
    expect(leadsOf(ctx, id).map((l) => l.networkUrl)).toEqual(
      expect.arrayContaining([url('a'), url('b'), 'https://www.linkedin.com/in/trust-bare', 'https://www.linkedin.com/in/trust-bare2']),
    );
    const again = parseCsv(rejectedRowsCsv(r.header, r.delimiter, r.rows)) as string[][];
    expect(again[0]).toEqual(['Name', 'LinkedIn URL', 'Title', 'line', 'status', 'reason']);
    expect(again[1]).toEqual(['No URL', '', 'Nobody', '7', 'validation_error', expect.stringMatching(/^networkUrl is missing/)]);
    expect(again[3]?.[2]).toBe('T'.repeat(201));
    expect(again).toHaveLength(6);
  });

  it('refuses the rows of a file saved in another encoding than UTF-8, naming the field, and charges nothing for them', async () => {
    const { ctx, id } = setup(100);
    // Windows-1252, as Excel's plain "CSV" saves it: é and ü are single bytes that are not UTF-8.
    const file = Buffer.concat([
      Buffer.from(`LinkedIn URL,Name,Company\n${url('ascii')},Ada Lovelace,Engines\n${url('jose')},Jos`),
      Buffer.from([0xe9]),
      Buffer.from(' M'),
      Buffer.from([0xfc]),
      Buffer.from('ller,Caf'),
      Buffer.from([0xe9]),
      Buffer.from('\n'),
    ]);
    const r = await importLeads(ctx, { campaignId: id, source: file });
    expect(r.summary).toMatchObject({ total: 2, created: 1, validation_error: 1 });
    expect(r.creditsCharged).toBe(1);
    expect(r.rows).toEqual([
      expect.objectContaining({ line: 3, status: 'validation_error', field: 'fullName', message: expect.stringMatching(/not UTF-8 .*"CSV UTF-8"/) }),
    ]);
    expect(leadsOf(ctx, id).map((l) => l.networkUrl)).not.toContain(url('jose'));
  });

  it('the CSV of rejected rows opens in a spreadsheet as text: a cell that would run as a formula is defused', () => {
    const csv = rejectedRowsCsv(['Name', 'LinkedIn URL', 'Title'], ',', [
      { line: 2, status: 'validation_error', field: 'networkUrl', message: 'networkUrl is missing.', cells: ['=HYPERLINK("http://evil")', '', '+1'] },
      { line: 3, status: 'validation_error', field: 'networkUrl', message: 'networkUrl is missing.', cells: ['@SUM(A1)', '-2', 'Plain - text'] },
    ]);
    const rows = parseCsv(csv) as string[][];
    expect(rows[1]!.slice(0, 3)).toEqual(['\'=HYPERLINK("http://evil")', '', "'+1"]);
    expect(rows[2]!.slice(0, 3)).toEqual(["'@SUM(A1)", "'-2", 'Plain - text']);
  });

  it('the dry run names the same rows', async () => {
    const { ctx, id } = setup(100);
    addExclusions(ctx, [url('x')]);
    const preview = await previewImport(ctx, { campaignId: id, source: FILE });
    expect(preview.rows.map((r) => [r.line, r.status])).toEqual([
      [7, 'validation_error'],
      [8, 'validation_error'],
      [9, 'validation_error'],
      [10, 'duplicate'],
      [11, 'excluded'],
    ]);
  });
});

describe('a malformed line', () => {
  const good = (n: number, from = 0) => Array.from({ length: n }, (_, i) => url(`m${from + i}`));

  it('stops the import there: the rows before it go in, the result names the line', async () => {
    const { ctx, id } = setup(1000);
    const lines = ['URL,Name', ...good(150).map((u) => `${u},x`), `${url('bad')},"broken"quote`, ...good(10, 200).map((u) => `${u},y`)];
    const r = await importLeads(ctx, { campaignId: id, source: lines.join('\r\n') });
    expect(r.stoppedAt).toMatchObject({ line: 152, message: expect.stringMatching(/^Line 152 is malformed/) });
    expect(r.summary).toMatchObject({ total: 150, created: 150 });
    expect(leadsOf(ctx, id)).toHaveLength(150);
    expect(r.creditsCharged).toBe(150);
  });

  it('an unclosed quote names the line where it opened', async () => {
    const { ctx, id } = setup(1000);
    const csv = `URL,Note\n${url('u1')},fine\n${url('u2')},"never closed\n${url('u3')},more\n`;
    const r = await importLeads(ctx, { campaignId: id, source: csv });
    expect(r.stoppedAt?.line).toBe(3);
    expect(r.stoppedAt?.message).toContain('never closed');
    expect(r.summary.created).toBe(1);
  });
});

describe('outreach import (CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outreach-import-trust-'));
  const db = join(dir, 'o.db');
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args, '--db', db], { cwd: dir, env: childEnv(), encoding: 'utf8' });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  beforeAll(() => {
    const ws = fixture();
    ws.credits = { credits: 2, topUpCredits: 0 };
    writeFileSync(join(dir, 'ws.json'), JSON.stringify(ws));
    expect(run(['seed', '--file', join(dir, 'ws.json')]).status).toBe(0);
    writeFileSync(join(dir, 'four.csv'), `LinkedIn URL,Name\n${url('c1')},A\nlinkedin.com/in/trust-c2,B\n${url('c3')},C\nnot a url,D\n`);
    writeFileSync(join(dir, 'broken.csv'), `LinkedIn URL,Name\n${url('k1')},A\n${url('k2')},"B"x\n${url('k3')},C\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('--dry-run prints the credits needed, available and short, and what to do', () => {
    const human = run(['import', '--campaign', 'cmp_noagent', '--file', join(dir, 'four.csv'), '--dry-run']);
    expect(human.status, human.stderr).toBe(0);
    // Batch add stops charging at the first row it cannot pay: the invalid row after it is left out too.
    expect(human.stdout).toContain('Credits needed: 3; available: 2; short: 2 row(s) would be left without credits.');
    expect(human.stdout).toMatch(/Grant credits first \(.*credits add 1 --db .*\), or import fewer rows\./);
    expect(human.stdout).toContain('line 5: validation_error (networkUrl): networkUrl is not a personal profile URL');
    const json = JSON.parse(run(['import', '--campaign', 'cmp_noagent', '--file', join(dir, 'four.csv'), '--dry-run', '--json']).stdout);
    expect(json).toMatchObject({
      summary: { total: 4, created: 3, validation_error: 1 },
      creditsCharged: 0,
      creditsNeeded: 3,
      creditsAvailable: 2,
      shortOfCredits: 2,
      rows: [{ line: 5, status: 'validation_error', field: 'networkUrl', message: expect.any(String) }],
    });
  });

  it('--json names every row not created; --rejected writes them to a CSV to fix and import again', () => {
    const out = join(dir, 'rejected.csv');
    const r = run(['import', '--campaign', 'cmp_noagent', '--file', join(dir, 'four.csv'), '--json', '--rejected', out]);
    expect(r.status, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.summary).toMatchObject({ total: 4, created: 2, insufficient_credits: 2 });
    expect(json.rows).toEqual([
      { line: 4, status: 'insufficient_credits', message: expect.stringContaining('outreach credits add N') },
      { line: 5, status: 'insufficient_credits', message: expect.any(String) },
    ]);
    const rejected = parseCsv(readFileSync(out, 'utf8')) as string[][];
    expect(rejected.map((row) => row.slice(0, 4))).toEqual([
      ['LinkedIn URL', 'Name', 'line', 'status'],
      [url('c3'), 'C', '4', 'insufficient_credits'],
      ['not a url', 'D', '5', 'insufficient_credits'],
    ]);
    // An existing file is never overwritten.
    const refused = run(['import', '--campaign', 'cmp_noagent', '--file', join(dir, 'four.csv'), '--rejected', out]);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('--rejected');
  });

  it('a malformed line stops the import with the summary of what went in and the line (exit 1), in words and in JSON', () => {
    run(['credits', 'add', '100']);
    const human = run(['import', '--campaign', 'cmp_q4', '--file', join(dir, 'broken.csv')]);
    expect(human.status).toBe(1);
    expect(human.stdout).toContain('Imported into cmp_q4: 1 row(s): 1 created');
    expect(human.stdout).toContain('Stopped at line 3: Line 3 is malformed');
    const json = run(['import', '--campaign', 'cmp_q4', '--file', join(dir, 'broken.csv'), '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ summary: { total: 1, duplicate: 1 }, stoppedAt: { line: 3, message: expect.stringContaining('Line 3') } });
    expect(existsSync(join(dir, 'broken.csv'))).toBe(true);
  });
});

describe('the dashboard import', () => {
  let server: TestServer;
  let cookie: string;
  beforeAll(async () => {
    server = await startTestServer({ uiDir: fakeUiDir() });
    cookie = await login(server.url, server.ctx);
    server.ctx.db.update(creditBalance).set({ credits: 2, topUpCredits: 0 }).run();
  });
  afterAll(() => server.close());
  const call = (name: string, args: Record<string, unknown>) => appCall(server.url, cookie, name, args);
  const csv = `LinkedIn URL,Name\n${url('d1')},A\n${url('d2')},B\n${url('d3')},C\nwww.linkedin.com/company/x,D\n`;

  it('the preview gives the credits, the rows not created and their CSV', async () => {
    const p = (await call('preview_import', { campaignId: 'cmp_noagent', csv })).body.structuredContent;
    expect(p).toMatchObject({
      creditsNeeded: 3,
      creditsAvailable: 2,
      shortOfCredits: 2,
      rows: [{ line: 5, status: 'validation_error', field: 'networkUrl' }],
    });
    expect(p.rejectedCsv.split('\r\n')[0]).toBe('LinkedIn URL,Name,line,status,reason');
  });

  it('get_import lists the rows not created once the import ends, with their CSV', async () => {
    const { importId } = (await call('start_import', { campaignId: 'cmp_noagent', csv })).body.structuredContent;
    let s: any;
    for (let i = 0; i < 200; i++) {
      s = (await call('get_import', { importId })).body.structuredContent;
      if (s.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(s).toMatchObject({ status: 'done', summary: { created: 2, insufficient_credits: 2 } });
    expect(s.rows.map((r: any) => [r.line, r.status])).toEqual([
      [4, 'insufficient_credits'],
      [5, 'insufficient_credits'],
    ]);
    expect(parseCsv(s.rejectedCsv)).toHaveLength(3);
  });

  it('a malformed line: the import stops there, failed, naming the line; a second import of the campaign waits for none', async () => {
    server.ctx.db.update(creditBalance).set({ credits: 100 }).run();
    const broken = `URL\n${url('e1')}\n"${url('e2')}\n${url('e3')}\n`;
    const { importId } = (await call('start_import', { campaignId: 'cmp_q4', csv: broken })).body.structuredContent;
    let s: any;
    for (let i = 0; i < 200; i++) {
      s = (await call('get_import', { importId })).body.structuredContent;
      if (s.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(s).toMatchObject({ status: 'failed', rowsTotal: 1, rowsDone: 1, summary: { created: 1 }, stoppedAt: { line: 3 } });
    expect(s.error).toMatch(/^Line 3 is malformed/);
  });
});
