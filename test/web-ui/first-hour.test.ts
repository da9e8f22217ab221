import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/config.js';
import { silentLogger } from '../../src/log.js';
import { createContext, startServer, type RunningServer } from '../../src/server.js';
import { DEFAULT_UI_DIR } from '../../src/web/mount.js';
import { BIN, childEnv } from '../imports/children.js';
import { requireTool } from '../optional.js';
import { hasChromium, launchChromium, openDashboard, screenshotDir, seriousViolations } from './browser.js';

/**
 * The first hour as the README tells it, in Debian's Chromium: an empty database, `outreach keys
 * create` (a workspace with no credits), then the dashboard only: the Settings page grants
 * credits, an account, an agent and a campaign are made, the import page warns that credits
 * fall short and says what to do, names the rows it would not create and offers them as a CSV,
 * and the campaign runs. axe checks every step.
 */
describe.skipIf(!requireTool('Chromium (/usr/bin/chromium)', hasChromium))('the first hour in a browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const scratch = mkdtempSync(join(tmpdir(), 'outreach-first-hour-'));
  const shots = screenshotDir(join(scratch, 'shots'));
  const dbPath = join(scratch, 'outreach.db');
  const consoleErrors: string[] = [];
  let apiKey = '';

  const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
  const expectAccessible = async () => expect(await seriousViolations(page)).toEqual([]);
  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const stat = (group: string, name: string) =>
    page.getByLabel(group, { exact: true }).getByText(name, { exact: true }).locator('xpath=following-sibling::dd[1]').textContent();

  const FILE = [
    'Name,LinkedIn URL,Company',
    'Mary Somerville,https://www.linkedin.com/in/mary-somerville-sim-fast-accept-sim-replies-positive,Orbits Ltd',
    'Emmy Noether,linkedin.com/in/emmy-noether-sim-fast-accept,Symmetry GmbH',
    'Carl Gauss,www.linkedin.com/in/carl-gauss/,Normal AG',
    'Ada Byron,https://www.linkedin.com/in/ada-byron,Engines',
    'Alan Turing,https://www.linkedin.com/in/alan-turing-first-hour,Bletchley',
    'Grace Hopper,https://www.linkedin.com/in/grace-hopper-first-hour,Navy',
    'Nobody,https://www.linkedin.com/company/acme,Acme',
  ].join('\n');
  const upload = () => page.getByLabel(/CSV file/).setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(`${FILE}\n`) });

  beforeAll(async () => {
    if (!existsSync(join(DEFAULT_UI_DIR, 'index.html'))) throw new Error('The dashboard is not built: run `npm run build` first.');
    const created = spawnSync(process.execPath, [BIN, 'keys', 'create', '--env', 'test', '--db', dbPath], { env: childEnv(), encoding: 'utf8' });
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('It has no credits yet.');
    apiKey = /sk_test_\w+/.exec(created.stdout)?.[0] ?? '';
    const settings: Settings = { host: '127.0.0.1', port: 0, dbPath, env: 'development', simSpeed: 86_400, config: {} };
    const ctx = createContext(settings, silentLogger());
    server = await startServer(settings, ctx.log, ctx);
    browser = await launchChromium();
    ({ page } = await openDashboard(browser, server, { viewport: { width: 1280, height: 860 }, acceptDownloads: true, errors: consoleErrors, console: true }));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('Settings shows the plan and the empty balances, and grants credits', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await heading('Settings');
    expect(await page.getByLabel('Plan', { exact: true }).textContent()).toContain('growth (paid)');
    expect(await stat('Credit balances', 'Credits')).toBe('0');
    await page.getByText(/No credits left/).waitFor();
    await expectAccessible();
    // A bad amount is refused in the form, naming the range.
    await page.getByLabel('Credits to add').fill('0');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByText('Enter a whole number of credits from 1 to 10,000,000.').waitFor();
    await page.getByLabel('Credits to add').fill('5');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByText('Granted 5 credits. Credits now: 5.').waitFor();
    await expect.poll(() => stat('Credit balances', 'Credits')).toBe('5');
    await expectAccessible();
    await shot('settings');
    // The grant is in the API at once.
    const credits = (await (await fetch(`${server.url}/public/v1/credits`, { headers: { 'X-API-Key': apiKey } })).json()) as { credits: number };
    expect(credits.credits).toBe(5);
  });

  it('an account, an agent and a campaign, made in the dashboard', async () => {
    await page.getByRole('link', { name: 'Accounts' }).click();
    await heading('Accounts');
    await page.getByLabel('Account name').fill('My LinkedIn');
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.getByText('My LinkedIn is connected.').waitFor();
    await page.getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'New agent' }).click();
    await heading('New agent');
    await page.getByLabel('Name', { exact: true }).fill('First agent');
    await page.getByRole('group', { name: 'Step 1: Invitation', exact: true }).getByLabel('Note').fill('Hello {{firstName|there}}!');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await heading('First agent');
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await heading('Campaigns');
    await page.getByLabel('Name').fill('First campaign');
    await page.getByLabel('Agent').selectOption({ label: 'First agent' });
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await heading('First campaign');
  });

  it('the import preview warns when credits fall short, says what to do, and names the rows it would not create', async () => {
    await page.getByRole('link', { name: 'Import leads', exact: true }).click();
    await heading('Import leads');
    await page.getByLabel('Campaign').selectOption({ label: 'First campaign' });
    await upload();
    await page.getByRole('heading', { name: 'Preview of people.csv' }).waitFor();
    expect(await stat('Credits', 'Credits needed')).toBe('6');
    expect(await stat('Credits', 'Credits available')).toBe('5');
    expect(await stat('Credits', 'Rows short of credits')).toBe('2');
    const warning = page.getByRole('alert').filter({ hasText: 'Not enough credits' });
    expect(await warning.textContent()).toContain('outreach credits add 1');
    expect(await warning.textContent()).toContain('import fewer rows');
    const rows = page.getByRole('table', { name: 'Rows that would not be imported' });
    await rows.getByRole('cell', { name: '8', exact: true }).waitFor();
    expect(await rows.getByRole('row').nth(1).textContent()).toContain('networkUrl is not a personal profile URL');
    await page.getByRole('button', { name: /^Import anyway \(2 rows short of credits\)$/ }).waitFor();
    await expectAccessible();
    await shot('import-credits');
    // What to do: the warning's link leads to Settings, where the grant is made.
    await warning.getByRole('link', { name: 'Settings' }).click();
    await heading('Settings');
    await page.getByLabel('Credits to add').fill('100');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByText('Granted 100 credits. Credits now: 105.').waitFor();
  }, 60_000);

  it('imports, lists the rows not imported and downloads them as a CSV to fix', async () => {
    await page.getByRole('link', { name: 'Import leads', exact: true }).click();
    await heading('Import leads');
    await page.getByLabel('Campaign').selectOption({ label: 'First campaign' });
    await upload();
    await page.getByRole('heading', { name: 'Preview of people.csv' }).waitFor();
    expect(await stat('Credits', 'Rows short of credits')).toBe('0');
    expect(await page.getByRole('alert').filter({ hasText: 'Not enough credits' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Import 7 rows' }).click();
    await page.getByText(/Import finished/).waitFor();
    expect(await stat('Import result', 'New leads')).toBe('6');
    const rejected = page.getByRole('table', { name: 'Rows not imported' });
    await rejected.getByRole('cell', { name: 'networkUrl', exact: true }).waitFor();
    await expectAccessible();
    await shot('import-rejected');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('region', { name: /Rows not imported/ })
        .getByRole('button', { name: 'Download these rows as CSV' })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe('people-not-imported.csv');
    const csv = parseCsv(readFileSync((await download.path()) as string, 'utf8')) as string[][];
    expect(csv[0]).toEqual(['Name', 'LinkedIn URL', 'Company', 'line', 'status', 'reason']);
    expect(csv[1]?.slice(0, 5)).toEqual(['Nobody', 'https://www.linkedin.com/company/acme', 'Acme', '8', 'validation_error']);
    expect(csv).toHaveLength(2);
  }, 60_000);

  it('the campaign runs', async () => {
    await page.getByRole('link', { name: 'See the campaign’s leads' }).click();
    await heading('First campaign');
    await page.getByRole('checkbox', { name: 'Select Emmy Noether' }).waitFor();
    await page.getByRole('button', { name: 'Start First campaign' }).click();
    // Start asks first, naming who sends to how many leads.
    await page.getByRole('alertdialog', { name: 'Start campaign First campaign?' }).getByRole('button', { name: 'Start sending' }).click();
    await page.getByRole('button', { name: 'Pause First campaign' }).waitFor();
    expect(await page.getByText('Running').first().isVisible()).toBe(true);
    await expectAccessible();
    expect(consoleErrors).toEqual([]);
  }, 60_000);
});
